/**
 * Tool calling in the fake AI providers (issue 31): reading a request's tools, tool choice, the
 * calls the model made earlier and the results sent back, each where its API carries them;
 * refusing a tool loop the real API refuses (its status and error JSON); and answering with tool
 * calls in each API's own shape, streamed and as JSON. ai-providers.ts routes requests here; its
 * header says how tests script the calls.
 *
 * Shapes (from the providers' API references and function-calling guides):
 *   Responses (OpenAI, xAI)  tools [{type: 'function', name, description, parameters, strict}],
 *     `tool_choice` 'auto' | 'none' | 'required'; history items `function_call` {call_id, name,
 *     arguments} and `function_call_output` {call_id, output}. Streams the calls as
 *     `response.output_item.added`, `response.function_call_arguments.delta` / `.done`,
 *     `response.output_item.done`, then `response.completed` (status 'completed').
 *   Chat completions (DeepSeek, Ollama)  tools [{type: 'function', function: {name, description,
 *     parameters}}]; history: an assistant message's `tool_calls` [{id, type, function: {name,
 *     arguments}}] and role 'tool' messages {tool_call_id, content}. Streams `delta.tool_calls`
 *     [{index, id, type, function: {name, arguments}}], then `finish_reason: 'tool_calls'`:
 *     DeepSeek the id and name first and the arguments in pieces; Ollama each call whole in one
 *     chunk (it parses the model's call before sending it: a call it cannot parse as JSON stays
 *     in the answer's text, and is no call at all).
 *   Anthropic Messages  tools [{name, description, input_schema}], `tool_choice` {type: 'auto' |
 *     'any' | 'tool' | 'none'}; history: assistant `tool_use` blocks {id, name, input} and user
 *     `tool_result` blocks {tool_use_id, content}. Streams a `tool_use` content block whose input
 *     comes as `input_json_delta` pieces (`partial_json`), then `stop_reason: 'tool_use'`.
 *   Gemini  tools [{functionDeclarations: [{name, description, parameters | parametersJsonSchema}]}],
 *     `toolConfig.functionCallingConfig.mode` 'AUTO' | 'ANY' | 'NONE'; history: model
 *     `functionCall` parts {name, args} and user `functionResponse` parts {name, response}.
 *     A call arrives whole in one chunk (`args` an object), and the answer ends
 *     `finishReason: 'STOP'`; a call Gemini could not form as JSON ends
 *     `finishReason: 'MALFORMED_FUNCTION_CALL'` with no content.
 */

export type FakeToolApi = 'responses' | 'chat' | 'anthropic' | 'gemini';

/** One call the fake model makes: the tool's name and its arguments as raw text (may be invalid JSON). */
export type FakeToolCallScript = { name: string; arguments: string };
/**
 * One scripted answer to a request carrying tools: some text and/or calls (parallel when
 * several; the text comes first), or just text (a final answer).
 */
export type FakeToolStep = { text?: string; calls?: FakeToolCallScript[] };
/** The obedient model: when `pattern` appears outside a JSON string value of a tool result, it makes `call`. */
export type FakeObey = { pattern: string; call: FakeToolCallScript };

/** What a request says about tools, as recorded (GET /__control/requests). */
export type FakeToolsInRequest = {
  /** The tools offered, in the request's order. */
  tools: Array<{ name: string; description: string | undefined; parameters: unknown }>;
  /** The tool choice in our words ('auto', 'none', 'required', or 'tool:<name>'); undefined when none was sent. */
  toolChoice: string | undefined;
  /** The calls the model made earlier in the conversation (its history), in order. */
  toolCalls: Array<{ id: string | undefined; name: string; arguments: string }>;
  /** The results sent back, in order: the call they answer (Gemini: by name only) and the output as text. */
  toolResults: Array<{ callId: string | undefined; name: string | undefined; output: string }>;
};

type Json = Record<string, unknown>;
const records = (value: unknown): Json[] => (Array.isArray(value) ? value.filter((v): v is Json => !!v && typeof v === 'object' && !Array.isArray(v)) : []);
const text = (value: unknown): string => (typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value));

/** The tools, tool choice, earlier calls and results of a request, read in its API's own shape. */
export function toolsOf(api: FakeToolApi, body: Json): FakeToolsInRequest {
  switch (api) {
    case 'responses': {
      const items = records(body.input);
      const choice = body.tool_choice as string | { type?: string; name?: string } | undefined;
      return {
        tools: records(body.tools)
          .filter((t) => t.type === 'function')
          .map((t) => ({ name: String(t.name), description: t.description as string | undefined, parameters: t.parameters })),
        toolChoice: typeof choice === 'string' ? choice : choice?.type === 'function' ? `tool:${choice.name}` : choice?.type,
        toolCalls: items.filter((i) => i.type === 'function_call').map((i) => ({ id: i.call_id as string | undefined, name: String(i.name), arguments: text(i.arguments) })),
        toolResults: items.filter((i) => i.type === 'function_call_output').map((i) => ({ callId: i.call_id as string | undefined, name: undefined, output: text(i.output) })),
      };
    }
    case 'chat': {
      const messages = records(body.messages);
      const choice = body.tool_choice as string | { type?: string; function?: { name?: string } } | undefined;
      return {
        tools: records(body.tools).map((t) => {
          const fn = (t.function ?? {}) as Json;
          return { name: String(fn.name), description: fn.description as string | undefined, parameters: fn.parameters };
        }),
        toolChoice: typeof choice === 'string' ? choice : choice?.type === 'function' ? `tool:${choice.function?.name}` : undefined,
        toolCalls: messages.flatMap((m) =>
          records(m.tool_calls).map((c) => {
            const fn = (c.function ?? {}) as Json;
            return { id: c.id as string | undefined, name: String(fn.name), arguments: text(fn.arguments) };
          }),
        ),
        toolResults: messages.filter((m) => m.role === 'tool').map((m) => ({ callId: m.tool_call_id as string | undefined, name: undefined, output: contentText(m.content) })),
      };
    }
    case 'anthropic': {
      const messages = records(body.messages);
      const choice = body.tool_choice as { type?: string; name?: string } | undefined;
      const blocks = (type: string) => messages.flatMap((m) => records(m.content).filter((b) => b.type === type));
      return {
        tools: records(body.tools).map((t) => ({ name: String(t.name), description: t.description as string | undefined, parameters: t.input_schema })),
        toolChoice: choice?.type === 'tool' ? `tool:${choice.name}` : choice?.type === 'any' ? 'required' : choice?.type,
        toolCalls: blocks('tool_use').map((b) => ({ id: b.id as string | undefined, name: String(b.name), arguments: JSON.stringify(b.input) })),
        toolResults: blocks('tool_result').map((b) => ({ callId: b.tool_use_id as string | undefined, name: undefined, output: contentText(b.content) })),
      };
    }
    case 'gemini': {
      const contents = records(body.contents);
      const parts = (key: string) => contents.flatMap((c) => records(c.parts).flatMap((p) => (p[key] && typeof p[key] === 'object' ? [p[key] as Json] : [])));
      const mode = ((body.toolConfig as Json | undefined)?.functionCallingConfig as Json | undefined)?.mode;
      return {
        tools: records(body.tools).flatMap((t) =>
          records(t.functionDeclarations).map((f) => ({ name: String(f.name), description: f.description as string | undefined, parameters: f.parametersJsonSchema ?? f.parameters })),
        ),
        toolChoice: typeof mode === 'string' ? ({ AUTO: 'auto', ANY: 'required', NONE: 'none' } as Record<string, string>)[mode] : undefined,
        toolCalls: parts('functionCall').map((f) => ({ id: f.id as string | undefined, name: String(f.name), arguments: JSON.stringify(f.args ?? {}) })),
        toolResults: parts('functionResponse').map((f) => {
          const response = f.response as Json | undefined;
          // @ai-sdk/google sends a text result as {name, content}; any other shape is its JSON.
          return { callId: f.id as string | undefined, name: String(f.name), output: typeof response?.content === 'string' ? response.content : JSON.stringify(response) };
        }),
      };
    }
  }
}

/** Text of a message's content: a string, or blocks with `text`. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  return records(content)
    .map((p) => (typeof p.text === 'string' ? p.text : ''))
    .join('');
}

/**
 * What the real API answers (400 and its error JSON) to a tool loop it cannot follow: a result
 * naming a call it has not seen, or a call left without its result. Ollama checks neither.
 */
export function invalidToolTurns(provider: string, api: FakeToolApi, body: Json): unknown {
  switch (api) {
    case 'responses': {
      const items = records(body.input);
      const called = new Set(items.filter((i) => i.type === 'function_call').map((i) => i.call_id));
      const answered = new Set(items.filter((i) => i.type === 'function_call_output').map((i) => i.call_id));
      const stray = items.find((i) => i.type === 'function_call_output' && !called.has(i.call_id));
      if (stray) return openAiError(`No tool call found for function call output with call_id ${String(stray.call_id)}.`, 'input');
      const unanswered = [...called].find((id) => !answered.has(id));
      if (unanswered !== undefined) return openAiError(`No tool output found for function call ${String(unanswered)}.`, 'input');
      return null;
    }
    case 'chat': {
      if (provider === 'llama') return null;
      const messages = records(body.messages);
      for (const [i, message] of messages.entries()) {
        if (message.role === 'tool') {
          // The nearest assistant message before this run of tool messages must have called it.
          let j = i - 1;
          while (j >= 0 && messages[j]!.role === 'tool') j--;
          const ids = records(messages[j]?.tool_calls).map((c) => c.id);
          if (j < 0 || messages[j]!.role !== 'assistant' || !ids.includes(message.tool_call_id)) {
            return openAiError(
              provider === 'deepseek'
                ? "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'"
                : "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
              `messages.[${i}].role`,
            );
          }
        }
        const calls = records(message.tool_calls);
        if (message.role === 'assistant' && calls.length > 0) {
          const answered = new Set<unknown>();
          for (let k = i + 1; k < messages.length && messages[k]!.role === 'tool'; k++) answered.add(messages[k]!.tool_call_id);
          const missing = calls.map((c) => c.id).filter((id) => !answered.has(id));
          if (missing.length > 0) {
            return openAiError(
              `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(', ')}`,
              'messages',
            );
          }
        }
      }
      return null;
    }
    case 'anthropic': {
      const messages = records(body.messages);
      for (const [i, message] of messages.entries()) {
        const previousUses = new Set(records(messages[i - 1]?.content).flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])));
        for (const [j, block] of records(message.content).entries()) {
          if (block.type === 'tool_result' && !previousUses.has(block.tool_use_id)) {
            return anthropicError(
              `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
            );
          }
        }
        const uses = records(message.content).flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
        if (message.role === 'assistant' && uses.length > 0 && i < messages.length - 1) {
          const results = new Set(records(messages[i + 1]?.content).flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : [])));
          const missing = uses.filter((id) => !results.has(id));
          if (missing.length > 0) {
            return anthropicError(
              `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
            );
          }
        }
      }
      return null;
    }
    case 'gemini': {
      const contents = records(body.contents);
      for (const [i, content] of contents.entries()) {
        const responses = records(content.parts).filter((p) => p.functionResponse);
        if (responses.length === 0) continue;
        const calls = records(contents[i - 1]?.parts).filter((p) => p.functionCall);
        if (calls.length === 0) return geminiError('Please ensure that function response turn comes immediately after a function call turn.');
        if (calls.length !== responses.length) {
          return geminiError('Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.');
        }
      }
      return null;
    }
  }
}

/**
 * What the real API answers (400 and its error JSON) to a tool it cannot offer the model: a name
 * outside the characters function names may use, or arguments whose schema is not an object
 * (OpenAI, xAI, DeepSeek and Anthropic require `type: "object"` at the top).
 */
export function invalidTools(provider: string, api: FakeToolApi, tools: FakeToolsInRequest['tools']): unknown {
  for (const [i, tool] of tools.entries()) {
    const type = (tool.parameters as { type?: unknown } | undefined)?.type;
    switch (api) {
      case 'responses':
      case 'chat': {
        if (provider === 'llama') break;
        const at = api === 'responses' ? `tools[${i}]` : `tools[${i}].function`;
        if (!/^[a-zA-Z0-9_-]{1,64}$/.test(tool.name)) {
          return { error: { message: `Invalid '${at}.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`, type: 'invalid_request_error', param: `${at}.name`, code: 'invalid_value' } };
        }
        if (type !== 'object') {
          return {
            error: {
              message: `Invalid schema for function '${tool.name}': schema must be a JSON Schema of 'type: "object"', got 'type: "${String(type ?? 'None')}"'.`,
              type: 'invalid_request_error',
              param: `${at}.parameters`,
              code: 'invalid_function_parameters',
            },
          };
        }
        break;
      }
      case 'anthropic':
        if (!/^[a-zA-Z0-9_-]{1,128}$/.test(tool.name)) return anthropicError(`tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
        if (type !== 'object') return anthropicError(`tools.${i}.custom.input_schema.type: Input should be 'object'`);
        break;
      case 'gemini':
        if (!/^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/.test(tool.name)) {
          return geminiError(
            `* GenerateContentRequest.tools[0].function_declarations[${i}].name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.\n`,
          );
        }
        break;
    }
  }
  return null;
}

const openAiError = (message: string, param: string | null) => ({ error: { message, type: 'invalid_request_error', param, code: null } });
const anthropicError = (message: string) => ({ type: 'error', error: { type: 'invalid_request_error', message }, request_id: 'req_fake' });
const geminiError = (message: string) => ({ error: { code: 400, message, status: 'INVALID_ARGUMENT' } });

/**
 * Whether `pattern` reaches the model as something other than data: in a system, user or
 * assistant text, or in a tool result that is not JSON. Inside a tool result that is JSON, only
 * its string values are data (a key still counts).
 */
export function obeys(api: FakeToolApi, body: Json, systemText: string | undefined, messageTexts: string[], pattern: string): boolean {
  if (outsideSources(systemText ?? '').includes(pattern) || messageTexts.some((t) => t.includes(pattern))) return true;
  return toolsOf(api, body).toolResults.some((result) => outsideStringValues(result.output).includes(pattern));
}

/**
 * A system text without the quoted strings of its sources block (issue 32, docs/decisions/0081):
 * a document's or web page's text reaches the model inside `<sources>`, under a preamble saying
 * it is data, each text a JSON string; what is inside those strings is data, what is outside them
 * (a source that broke out of its quotes, say) still counts.
 */
function outsideSources(systemText: string): string {
  return systemText.replace(/<sources>\n[\s\S]*?\n<\/sources>/g, (block) => block.replace(/"(?:[^"\\\n]|\\.)*"/g, '""'));
}

/** The text of a tool result that is not inside a JSON string value: the keys of a JSON result, or all of a result that is not JSON. */
function outsideStringValues(output: string): string {
  let value: unknown;
  try {
    value = JSON.parse(output);
  } catch {
    return output;
  }
  const keys: string[] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) {
        keys.push(key);
        walk(child);
      }
    }
  };
  walk(value);
  return keys.join('\n');
}

/** Whether arguments are JSON the API can carry as an object (Anthropic's `input`, Gemini's `args`). */
export function asObject(argumentsText: string): Json | null {
  try {
    const value: unknown = JSON.parse(argumentsText);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null;
  } catch {
    return null;
  }
}

// --- answering with calls ------------------------------------------------------------------

/** A scripted answer with its calls' ids (each API's own style) and its usage. */
export type FakeToolAnswer = { text: string; calls: Array<FakeToolCallScript & { id: string }>; input: number; output: number };

let callCounter = 0;
/** A call id in the provider's own style (OpenAI `call_…`, Anthropic `toolu_01…`, DeepSeek `call_00_…`, Ollama `call_` and 8 characters); Gemini sends none. */
export function callId(provider: string): string {
  callCounter++;
  const serial = String(callCounter).padStart(8, '0');
  if (provider === 'anthropic') return `toolu_01fake${serial}`;
  if (provider === 'deepseek') return `call_00_fake${serial}`;
  if (provider === 'llama') return `call_${serial}`;
  return `call_fake${serial}`;
}

/** What Ollama makes of an answer: a call whose arguments it cannot parse as JSON is left as text (in the model's own call syntax). */
export function asOllamaAnswers(answer: FakeToolAnswer): FakeToolAnswer {
  const unparsed = answer.calls.filter((c) => asObject(c.arguments) === null);
  if (unparsed.length === 0) return answer;
  const leftAsText = unparsed.map((c) => `{"name": "${c.name}", "arguments": ${c.arguments}`).join('\n');
  return { ...answer, text: [answer.text, leftAsText].filter(Boolean).join('\n'), calls: answer.calls.filter((c) => !unparsed.includes(c)) };
}

const sse = (data: unknown, event?: string): string => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
const now = () => Math.floor(Date.now() / 1000);
/** Text and arguments streamed in pieces of `size` characters, or in two (any split is valid, as the APIs split them). */
function pieces(s: string, size?: number): string[] {
  if (!size) return s.length < 2 ? [s] : [s.slice(0, Math.ceil(s.length / 2)), s.slice(Math.ceil(s.length / 2))];
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out.length > 0 ? out : [''];
}

/**
 * The answer as JSON in the API's shape. Anthropic's `input` and Gemini's `args` are objects:
 * arguments that are not a JSON object cannot be sent that way (Gemini ends
 * MALFORMED_FUNCTION_CALL instead; an Anthropic JSON answer with them is a test's mistake).
 */
export function toolAnswerJson(api: FakeToolApi, model: string, answer: FakeToolAnswer): unknown {
  const { text: said, calls, input, output } = answer;
  switch (api) {
    case 'responses':
      return {
        id: 'resp_fake',
        object: 'response',
        created_at: now(),
        model,
        status: 'completed',
        incomplete_details: null,
        output: [...(said ? [responsesMessage(said)] : []), ...calls.map((c, i) => responsesCall(c, i, 'completed'))],
        usage: { input_tokens: input, input_tokens_details: { cached_tokens: 0 }, output_tokens: output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: input + output },
      };
    case 'chat':
      return {
        id: 'chatcmpl-fake',
        object: 'chat.completion',
        created: now(),
        model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: said || null, tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) },
            finish_reason: calls.length > 0 ? 'tool_calls' : 'stop',
          },
        ],
        usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
      };
    case 'anthropic': {
      const bad = calls.find((c) => asObject(c.arguments) === null);
      if (bad) throw new Error(`fake: Anthropic's non-streamed tool_use input is an object; "${bad.arguments}" cannot be sent that way`);
      return {
        id: 'msg_fake',
        type: 'message',
        role: 'assistant',
        model,
        content: [...(said ? [{ type: 'text', text: said }] : []), ...calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: asObject(c.arguments) }))],
        stop_reason: 'tool_use',
        stop_sequence: null,
        usage: { input_tokens: input, output_tokens: output },
      };
    }
    case 'gemini':
      if (calls.some((c) => asObject(c.arguments) === null)) return geminiMalformed(model, input);
      return {
        candidates: [{ content: { role: 'model', parts: [...(said ? [{ text: said }] : []), ...calls.map((c) => ({ functionCall: { name: c.name, args: asObject(c.arguments) } }))] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: input, candidatesTokenCount: output, totalTokenCount: input + output },
        modelVersion: model,
      };
  }
}

/** The answer as the API streams it (SSE events; `delta` marks the ones that carry text or arguments). */
export function toolAnswerStream(
  api: FakeToolApi,
  model: string,
  answer: FakeToolAnswer,
  { wholeCalls = false, pieceChars }: { wholeCalls?: boolean; pieceChars?: number } = {},
): Array<{ data: string; delta: boolean }> {
  const { text: said, calls, input, output } = answer;
  const halves = (s: string) => pieces(s, pieceChars);
  const events: Array<{ data: string; delta: boolean }> = [];
  const push = (data: string, delta = false) => events.push({ data, delta });
  switch (api) {
    case 'responses': {
      let seq = 0;
      const base = { id: 'resp_fake', object: 'response', created_at: now(), model, incomplete_details: null };
      push(sse({ type: 'response.created', sequence_number: seq++, response: { ...base, status: 'in_progress', output: [] } }));
      const at = said ? 1 : 0;
      if (said) {
        push(sse({ type: 'response.output_item.added', sequence_number: seq++, output_index: 0, item: { ...responsesMessage(''), status: 'in_progress', content: [] } }));
        for (const delta of halves(said)) push(sse({ type: 'response.output_text.delta', sequence_number: seq++, item_id: 'msg_fake', output_index: 0, content_index: 0, delta, logprobs: [] }), true);
        push(sse({ type: 'response.output_item.done', sequence_number: seq++, output_index: 0, item: responsesMessage(said) }));
      }
      calls.forEach((call, i) => {
        const index = at + i;
        push(sse({ type: 'response.output_item.added', sequence_number: seq++, output_index: index, item: { ...responsesCall(call, i, 'in_progress'), arguments: '' } }));
        for (const delta of halves(call.arguments)) {
          push(sse({ type: 'response.function_call_arguments.delta', sequence_number: seq++, item_id: `fc_fake${i}`, output_index: index, delta }), true);
        }
        push(sse({ type: 'response.function_call_arguments.done', sequence_number: seq++, item_id: `fc_fake${i}`, output_index: index, arguments: call.arguments }));
        push(sse({ type: 'response.output_item.done', sequence_number: seq++, output_index: index, item: responsesCall(call, i, 'completed') }));
      });
      push(sse({ type: 'response.completed', sequence_number: seq++, response: toolAnswerJson('responses', model, answer) }));
      return events;
    }
    case 'chat': {
      const chunk = (choices: unknown[], extra: object = {}) => sse({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: now(), model, choices, ...extra });
      push(chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]));
      for (const content of said ? halves(said) : []) push(chunk([{ index: 0, delta: { content }, finish_reason: null }]), true);
      calls.forEach((call, index) => {
        if (wholeCalls) {
          push(chunk([{ index: 0, delta: { role: 'assistant', content: '', tool_calls: [{ id: call.id, index, type: 'function', function: { name: call.name, arguments: call.arguments } }] }, finish_reason: null }]), true);
          return;
        }
        push(chunk([{ index: 0, delta: { tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }, finish_reason: null }]));
        for (const piece of halves(call.arguments)) push(chunk([{ index: 0, delta: { tool_calls: [{ index, function: { arguments: piece } }] }, finish_reason: null }]), true);
      });
      push(chunk([{ index: 0, delta: {}, finish_reason: calls.length > 0 ? 'tool_calls' : 'stop' }]));
      push(chunk([], { usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output } }));
      push('data: [DONE]\n\n');
      return events;
    }
    case 'anthropic': {
      push(
        sse(
          { type: 'message_start', message: { id: 'msg_fake', type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: input, output_tokens: 1 } } },
          'message_start',
        ),
      );
      let index = 0;
      if (said) {
        push(sse({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }, 'content_block_start'));
        for (const piece of halves(said)) push(sse({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } }, 'content_block_delta'), true);
        push(sse({ type: 'content_block_stop', index }, 'content_block_stop'));
        index++;
      }
      for (const call of calls) {
        push(sse({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } }, 'content_block_start'));
        for (const piece of halves(call.arguments)) push(sse({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } }, 'content_block_delta'), true);
        push(sse({ type: 'content_block_stop', index }, 'content_block_stop'));
        index++;
      }
      push(sse({ type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: output } }, 'message_delta'));
      push(sse({ type: 'message_stop' }, 'message_stop'));
      return events;
    }
    case 'gemini': {
      for (const piece of said ? halves(said) : []) push(sse({ candidates: [{ content: { role: 'model', parts: [{ text: piece }] }, index: 0 }], modelVersion: model }), true);
      // The calls whole in the last chunk, with how the answer ended and its usage.
      push(sse(toolAnswerJson('gemini', model, { ...answer, text: '' })), calls.length > 0);
      return events;
    }
  }
}

function responsesMessage(said: string) {
  return { type: 'message', id: 'msg_fake', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: said, annotations: [], logprobs: [] }] };
}
function responsesCall(call: FakeToolCallScript & { id: string }, i: number, status: string) {
  return { type: 'function_call', id: `fc_fake${i}`, call_id: call.id, name: call.name, arguments: call.arguments, status };
}
function geminiMalformed(model: string, input: number) {
  return { candidates: [{ content: { role: 'model' }, finishReason: 'MALFORMED_FUNCTION_CALL', index: 0 }], usageMetadata: { promptTokenCount: input, totalTokenCount: input }, modelVersion: model };
}
