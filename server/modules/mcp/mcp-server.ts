// The low-level Server, not McpServer: our tools are listed per request from AgentTools.specs (the
// user's role and the token's scope decide which), as the JSON Schemas the chat's models see, and
// their arguments are checked by AgentTools.run with the contract's schema, so the chat and MCP
// refuse bad arguments in the same words. McpServer would validate them first with its own.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyBaseLogger } from 'fastify';
import { isAgentTool, READ_TOOLS } from '../../../contracts/assistant-tools.ts';
import type { TokenHolder } from '../auth/access-tokens.service.ts';
import type { AgentTools } from '../agent-tools/types.ts';

/** How the server names itself to a client (the initialize answer). */
export const MCP_SERVER_INFO = { name: 'axiom-agents', version: '1.0.0' } as const;

const FAILED = JSON.stringify({ error: 'The tool failed on the server. Try again in a moment.' });

/**
 * One MCP server for one request of one token's holder (stateless: nothing outlives the
 * request). `signal` ends with the request: a tool running when the client goes away stops.
 */
export function mcpServerFor({ holder, agentTools, log, signal }: { holder: TokenHolder; agentTools: AgentTools; log: FastifyBaseLogger; signal: AbortSignal }): Server {
  const server = new Server(MCP_SERVER_INFO, { capabilities: { tools: {} }, instructions: agentTools.systemPrompt });

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: agentTools.specs(holder.user, holder.token.scope).map(
      (spec): Tool => ({
        name: spec.name,
        description: spec.description,
        inputSchema: spec.parameters as Tool['inputSchema'],
        annotations: isReadTool(spec.name) ? { readOnlyHint: true, openWorldHint: false } : { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
      }),
    ),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params;
    try {
      const outcome = await agentTools.run(
        {
          user: holder.user,
          source: 'mcp',
          sourceName: holder.token.name,
          scope: holder.token.scope,
          rateKey: `token:${holder.token.id}`,
          conversationId: null,
          signal: AbortSignal.any([signal, extra.signal]),
          log,
        },
        name,
        JSON.stringify(args ?? {}),
      );
      return { content: [{ type: 'text', text: outcome.forModel }], ...(outcome.status === 'ok' ? {} : { isError: true }) };
    } catch (err) {
      // run() answers every expected failure itself; this is a fault of ours (the database gone).
      log.error({ err, tool: name, tokenId: holder.token.id }, 'MCP tool call failed');
      return { content: [{ type: 'text', text: FAILED }], isError: true };
    }
  });

  return server;
}

const isReadTool = (name: string) => isAgentTool(name) && (READ_TOOLS as readonly string[]).includes(name);
