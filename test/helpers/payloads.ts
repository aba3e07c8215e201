import {readFileSync} from 'node:fs';
import {fileURLToPath} from 'node:url';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** A real payload from test/fixtures (copied from the agents' published formats). */
export function fixture(path: string): Record<string, unknown> {
	return JSON.parse(readFileSync(FIXTURES + path, 'utf8')) as Record<string, unknown>;
}

/** The Claude payload `name` for a session of our choosing, otherwise exactly as sent. */
export function claudePayload(name: string, sessionId: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
	return {...fixture(`claude/${name}.json`), session_id: sessionId, ...extra};
}

/** JSON lines of a realistic Claude session: start, prompts and tool calls, then end. */
export function claudeSessionLines(sessionId: string, toolCalls: number): string[] {
	const lines = [claudePayload('SessionStart', sessionId), claudePayload('UserPromptSubmit', sessionId)];
	for (let call = 0; call < toolCalls; call += 1) {
		const id = `toolu_${sessionId.slice(0, 8)}_${call}`;
		lines.push(
			claudePayload('PreToolUse', sessionId, {tool_use_id: id}),
			claudePayload('PostToolUse', sessionId, {tool_use_id: id}),
		);
	}
	lines.push(claudePayload('Stop', sessionId), claudePayload('SessionEnd', sessionId));
	return lines.map(line => JSON.stringify(line));
}
