import { BRIEF_MODEL_RULE, BRIEF_PROVIDER_RULE, type TAlertBriefChoice } from '../../../contracts/agents.ts';
import { CHAT_PROVIDER_INFO, OLLAMA_TOOL_MODELS, OLLAMA_VISION_TYPES, type TChatModel, type TChatProvider } from '../../../contracts/chat.ts';
import type { TRole } from '../../../contracts/users.ts';
import type { ChatConfig } from '../../config.ts';
import type { ErrorDetail } from '../../lib/errors.ts';

/**
 * Who may use which assistant and which models it offers, read from the configuration: one
 * answer for the chat screens and for "Explain alerts" (docs/decisions/0044), which spends the
 * same budget with the same assistants.
 */

/** The models the server accepts for a provider: the contract's list, Llama's from OLLAMA_MODELS
 * (those named in OLLAMA_VISION_MODELS or the contract's list of them see images; those named in
 * OLLAMA_TOOL_MODELS or the contract's list of them call tools, issue 31). */
export function modelsOf(
  config: Pick<ChatConfig, 'ollamaModels'> & Partial<Pick<ChatConfig, 'ollamaVisionModels' | 'ollamaToolModels'>>,
  provider: TChatProvider,
): TChatModel[] {
  if (provider !== 'llama') return [...CHAT_PROVIDER_INFO[provider].models];
  const vision = new Set(config.ollamaVisionModels ?? []);
  const tools = new Set(config.ollamaToolModels ?? OLLAMA_TOOL_MODELS);
  return config.ollamaModels.map((id) => {
    const { tools: _listed, ...model } = CHAT_PROVIDER_INFO.llama.models.find((m) => m.id === id) ?? { id, label: id };
    const name = id.split(':')[0]!;
    return { ...model, ...(vision.has(name) ? { vision: OLLAMA_VISION_TYPES } : {}), ...(tools.has(name) ? { tools: true as const } : {}) };
  });
}

/** The role policy (CHAT_POLICY over the defaults); admins pass every check. */
export function mayUse(config: Pick<ChatConfig, 'access'>, provider: TChatProvider, role: TRole): boolean {
  return config.access[provider] === 'signedIn' || role === 'admin';
}

/** A text model of the provider the server accepts (an image model cannot write a brief). */
export function briefModel(config: Pick<ChatConfig, 'ollamaModels'>, choice: TAlertBriefChoice): TChatModel | undefined {
  return modelsOf(config, choice.provider).find((m) => m.id === choice.model && m.image !== true);
}

/**
 * Why an agent's "Explain alerts" choice cannot be saved for this user, on the fields (paths under
 * `config.notifications.brief`): an assistant the policy does not let them use, or a model not on
 * the assistant's list. An assistant without a key may be chosen: its briefs then fail with
 * "API key not configured", which the settings say beforehand.
 */
export function briefChoiceProblems(config: Pick<ChatConfig, 'access' | 'ollamaModels'>, role: TRole, choice: TAlertBriefChoice | undefined): ErrorDetail[] {
  if (!choice) return [];
  const path = 'config.notifications.brief';
  if (!mayUse(config, choice.provider, role)) return [{ path: `${path}.provider`, message: BRIEF_PROVIDER_RULE }];
  if (!briefModel(config, choice)) return [{ path: `${path}.model`, message: BRIEF_MODEL_RULE }];
  return [];
}
