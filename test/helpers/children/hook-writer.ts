// Child process: one concurrent writer making COUNT hook calls in-process through the hook's own
// entry after stdin (handleHookInput): the same code as `controlroom hook`, without 2,000 node starts.
import {handleHookInput} from '../../../src/producers/agent-hook/hook-main.ts';

const [home, writer, count] = process.argv.slice(2);
const env = {...process.env, CONTROLROOM_HOME: home, CLAUDE_PID: String(process.pid)};
const outcomes: Record<string, number> = {};
for (let index = 0; index < Number(count); index += 1) {
	const payload = {
		session_id: `writer-${writer}`,
		transcript_path: '/nonexistent/transcript.jsonl',
		cwd: '/tmp',
		hook_event_name: 'PostToolUse',
		tool_name: 'Bash',
		tool_input: {command: `echo ${index}`},
		tool_use_id: `w${writer}-${index}`,
	};
	const outcome = handleHookInput({}, JSON.stringify(payload), env);
	outcomes[outcome.recordedIn] = (outcomes[outcome.recordedIn] ?? 0) + 1;
}
process.stdout.write(`${JSON.stringify(outcomes)}\n`);
