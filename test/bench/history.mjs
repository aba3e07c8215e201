// Generates a realistic hook history as spool envelopes: Claude and Codex sessions over six weeks,
// each a SessionStart, prompts, tool calls (some TodoWrite plans), notifications, subagents, Stop
// and SessionEnd, in the shape of the payloads in test/fixtures.
import {createWriteStream} from 'node:fs';

const SIX_WEEKS_MS = 42 * 86_400_000;

function random(seed) {
	let state = seed >>> 0;
	return () => {
		state = (state * 1_664_525 + 1_013_904_223) >>> 0;
		return state / 2 ** 32;
	};
}

function uuid(next) {
	const hex = () => Math.floor(next() * 16).toString(16);
	const part = length => Array.from({length}, hex).join('');
	return `${part(8)}-${part(4)}-4${part(3)}-8${part(3)}-${part(12)}`;
}

/** Writes about `sessions` sessions to `file`; resolves to the number of lines written. */
export async function writeHistory(file, {sessions, start = Date.now() - SIX_WEEKS_MS, seed = 42}) {
	const next = random(seed);
	const out = createWriteStream(file);
	let lines = 0;
	const write = (at, source, payload) => {
		lines += 1;
		const line = `${JSON.stringify({at: new Date(at).toISOString(), source, payload})}\n`;
		return out.write(line) ? undefined : new Promise(resolve => out.once('drain', resolve));
	};
	for (let index = 0; index < sessions; index += 1) {
		const source = next() < 0.7 ? 'claude' : 'codex';
		const session_id = uuid(next);
		const cwd = `/home/dev/repo-${Math.floor(next() * 40)}`;
		const base = {
			session_id,
			transcript_path: `/home/dev/.claude/projects/x/${session_id}.jsonl`,
			cwd,
			permission_mode: 'default',
		};
		const extra = source === 'codex' ? {turn_id: uuid(next), model: 'gpt-5-codex'} : {};
		let at = start + Math.floor((index / sessions) * SIX_WEEKS_MS);
		const emit = async payload => {
			at += 1000 + Math.floor(next() * 30_000);
			await write(at, source, {...base, ...extra, ...payload});
		};
		await emit({hook_event_name: 'SessionStart', source: 'startup'});
		await emit({hook_event_name: 'UserPromptSubmit', prompt: `Fix issue #${index}: the export drops filtered rows`});
		const calls = 2 + Math.floor(next() * 10);
		const planned = next() < 0.3;
		for (let call = 0; call < calls; call += 1) {
			const tool_use_id = `toolu_${index}_${call}`;
			const isPlan = planned && call % 3 === 0;
			const tool_name = isPlan ? (source === 'codex' ? 'update_plan' : 'TodoWrite') : 'Bash';
			const tool_input = isPlan
				? source === 'codex'
					? {
							plan: [
								{step: 'read', status: 'completed'},
								{step: 'fix', status: call > 2 ? 'completed' : 'in_progress'},
								{step: 'test', status: 'pending'},
							],
						}
					: {
							todos: [
								{content: 'read', status: 'completed', activeForm: 'Reading'},
								{content: 'fix', status: 'in_progress', activeForm: 'Fixing'},
							],
						}
				: {command: `npm test -- ${call}`, description: 'Run tests'};
			await emit({hook_event_name: 'PreToolUse', tool_name, tool_input, tool_use_id});
			await emit({
				hook_event_name: 'PostToolUse',
				tool_name,
				tool_input,
				tool_use_id,
				tool_response: {stdout: 'ok', stderr: '', interrupted: false},
				duration_ms: 40,
			});
		}
		if (next() < 0.15)
			await emit({
				hook_event_name: 'Notification',
				message: 'Claude needs your permission to use Bash',
				notification_type: 'permission_prompt',
			});
		if (source === 'claude' && next() < 0.2) {
			const agent_id = uuid(next);
			await emit({hook_event_name: 'SubagentStart', agent_id, agent_type: 'Explore'});
			await emit({
				hook_event_name: 'SubagentStop',
				agent_id,
				agent_type: 'Explore',
				agent_transcript_path: `/tmp/${agent_id}.jsonl`,
			});
		}
		await emit({hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'done'});
		if (next() < 0.97) await emit({hook_event_name: 'SessionEnd', reason: 'other'});
	}
	await new Promise(resolve => out.end(resolve));
	return lines;
}
