import { OUTBOUND_FAILURES, type TOutboundFailure } from '../../../contracts/outbound.ts';
import type { ForbiddenRange } from './address-policy.ts';

/** What the log may hold about a refused or failed request: never the URL's path or query. */
export type OutboundLogDetail = {
  /** Scheme, host and port only, e.g. 'https://hooks.example.com'. */
  target?: string;
  address?: string;
  range?: ForbiddenRange;
  status?: number;
  /** The socket's, resolver's or TLS layer's error code, e.g. 'ECONNREFUSED'. */
  code?: string;
};

/** Kinds worth trying again later: the same request may succeed in a minute. */
const RETRYABLE: ReadonlySet<TOutboundFailure> = new Set(['not-found', 'unreachable', 'timeout']);

/**
 * A refused or failed outbound request. `message` is the fixed sentence for the user;
 * `detail` is for the log. No cause is attached: loggers serialise causes, and a socket
 * error's text can carry more than the log may hold.
 */
export class OutboundError extends Error {
  readonly kind: TOutboundFailure;
  readonly detail: OutboundLogDetail;
  readonly retryable: boolean;

  constructor(kind: TOutboundFailure, detail: OutboundLogDetail = {}) {
    super(OUTBOUND_FAILURES[kind]);
    this.name = 'OutboundError';
    this.kind = kind;
    this.detail = detail;
    this.retryable = RETRYABLE.has(kind);
  }
}

/** The part of a URL the log may show: its scheme, host and port. */
export function logTarget(url: URL): string {
  return `${url.protocol}//${url.host}`;
}
