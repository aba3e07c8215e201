/** One message of an agent session: something said, a tool call, or a tool's result. */
export type SessionMessage = {readonly kind: 'said' | 'tool' | 'result'; readonly who: string; readonly text: string};

const TOOL_ARGUMENT_CHARS = 160;

function record(value: unknown): Record<string, unknown> | null {
	return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function str(value: unknown): string | null {
	return typeof value === 'string' && value.trim() !== '' ? value : null;
}

function oneLine(text: string, limit = TOOL_ARGUMENT_CHARS): string {
	const line = text.replace(/\s+/g, ' ').trim();
	return line.length > limit ? `${line.slice(0, limit - 1)}…` : line;
}

/** What a tool call was asked to do, in a few words: the command, the file, or its arguments. */
function toolSummary(name: string, input: unknown): string {
	const fields = record(input);
	const detail =
		str(fields?.['command']) ??
		str(fields?.['file_path']) ??
		str(fields?.['path']) ??
		str(fields?.['pattern']) ??
		str(fields?.['description']) ??
		(typeof input === 'string' ? input : input === undefined ? '' : JSON.stringify(input));
	return `${name} ${oneLine(detail)}`.trim();
}

/** The text of a tool's result: a string, or the text blocks of a list. */
function resultText(content: unknown): string {
	if (typeof content === 'string') return content;
	if (!Array.isArray(content)) return '';
	return content.map(block => str(record(block)?.['text']) ?? '').join('\n');
}

/** A Claude Code transcript line: user and assistant messages with their text and tool blocks. */
function claudeMessages(line: Record<string, unknown>, agent: string): SessionMessage[] {
	if (line['isSidechain'] === true) return [];
	const message = record(line['message']);
	const role = line['type'];
	if (!message || (role !== 'user' && role !== 'assistant')) return [];
	const who = role === 'user' ? 'you' : agent;
	const content = message['content'];
	if (typeof content === 'string') return content.trim() ? [{kind: 'said', who, text: content}] : [];
	if (!Array.isArray(content)) return [];
	const messages: SessionMessage[] = [];
	for (const block of content.map(record)) {
		if (!block) continue;
		const text = str(block['text']);
		if (block['type'] === 'text' && text) messages.push({kind: 'said', who, text});
		else if (block['type'] === 'tool_use') {
			messages.push({kind: 'tool', who: agent, text: toolSummary(str(block['name']) ?? 'tool', block['input'])});
		} else if (block['type'] === 'tool_result') {
			const result = resultText(block['content']).trim();
			messages.push({kind: 'result', who: agent, text: result === '' ? '(no output)' : oneLine(result)});
		}
	}
	return messages;
}

/** A Codex session line (`response_item`): messages, function calls and their output. */
function codexMessages(line: Record<string, unknown>, agent: string): SessionMessage[] {
	const item = record(line['payload']);
	if (line['type'] !== 'response_item' || !item) return [];
	if (item['type'] === 'message') {
		const role = item['role'];
		if (role !== 'user' && role !== 'assistant') return [];
		const text = resultText(item['content']).trim();
		// Codex puts its own instructions and environment into the first user items.
		if (!text || (role === 'user' && text.startsWith('<'))) return [];
		return [{kind: 'said', who: role === 'user' ? 'you' : agent, text}];
	}
	if (item['type'] === 'function_call' || item['type'] === 'custom_tool_call') {
		return [{kind: 'tool', who: agent, text: toolSummary(str(item['name']) ?? 'tool', item['arguments'] ?? item['input'])}];
	}
	if (item['type'] === 'function_call_output' || item['type'] === 'custom_tool_call_output') {
		const output = record(item['output']);
		const text = str(item['output']) ?? str(output?.['content']) ?? '';
		return [{kind: 'result', who: agent, text: text.trim() === '' ? '(no output)' : oneLine(text)}];
	}
	return [];
}

/** What a message line of either transcript holds somewhere. */
const MESSAGE_LINE = /"type":\s*"(?:user|assistant|response_item)"/;

/**
 * The messages in transcript lines (JSONL) of Claude Code or Codex, oldest first. Lines that are
 * not JSON (a line cut by reading from the middle of a file) or not a message are skipped.
 */
export function transcriptMessages(lines: readonly string[], agent: string): SessionMessage[] {
	const messages: SessionMessage[] = [];
	for (const text of lines) {
		// Most lines of a real transcript are neither (attachments, request snapshots, some of them
		// large): not parsed at all.
		if (!MESSAGE_LINE.test(text)) continue;
		let parsed: unknown;
		try {
			parsed = JSON.parse(text);
		} catch {
			continue;
		}
		const line = record(parsed);
		if (!line) continue;
		messages.push(...claudeMessages(line, agent), ...codexMessages(line, agent));
	}
	return messages;
}

/** The messages as lines for the log view: `you: …`, `claude → Bash ls`, `  ⎿ result`; further lines indented. */
export function messageLines(messages: readonly SessionMessage[]): string[] {
	return messages.flatMap(message => {
		const [first = '', ...rest] = message.text.replace(/\r/g, '').split('\n');
		const lead = message.kind === 'said' ? `${message.who}: ` : message.kind === 'tool' ? `${message.who} → ` : '  ⎿ ';
		const indent = ' '.repeat(Math.min(12, lead.length));
		return [`${lead}${first}`, ...rest.map(line => `${indent}${line}`)];
	});
}

/** What an agent's lifecycle events say, for a session whose transcript cannot be read. */
export type AgentEventPayload = {readonly event: string | null; readonly payload: unknown};

/**
 * The messages the ledger itself holds for a session, oldest first: the prompts (UserPromptSubmit),
 * the tools called (PreToolUse), the last answer of each turn (Claude Code's Stop, Codex's notify).
 * Coarser than the transcript (long strings were cut when recorded), but always there.
 */
export function ledgerMessages(events: readonly AgentEventPayload[], agent: string): SessionMessage[] {
	const messages: SessionMessage[] = [];
	for (const {event, payload} of events) {
		const fields = record(payload);
		if (!fields) continue;
		const prompt = str(fields['prompt']);
		if (event === 'UserPromptSubmit' && prompt) messages.push({kind: 'said', who: 'you', text: prompt});
		const tool = str(fields['tool_name']);
		if (event === 'PreToolUse' && tool) messages.push({kind: 'tool', who: agent, text: toolSummary(tool, fields['tool_input'])});
		const inputs = fields['input-messages'];
		if (Array.isArray(inputs)) {
			for (const input of inputs) if (str(input)) messages.push({kind: 'said', who: 'you', text: String(input)});
		}
		const answer = str(fields['last_assistant_message']) ?? str(fields['last-assistant-message']);
		if (answer) messages.push({kind: 'said', who: agent, text: answer});
	}
	return messages;
}
