// What the hold hook prints when it cannot decide (docs/headless-holds.md, "How a call is held"):
// a headless run's call is denied with the reason, since a PreToolUse hook that prints nothing
// lets Claude fall through to its permission mode, which in bypass mode runs the call. Its own
// small file: the hooks' loader (decision-hooks-entry.ts) needs it when the hook itself cannot load.

/** The PreToolUse answer for a fault: a deny naming it (headless), or nothing (the TUI's dialog follows). */
export function holdFaultAnswer(message: string, env: NodeJS.ProcessEnv = process.env): string {
	const isHeadless = env['CLAUDE_CODE_ENTRYPOINT'] === 'sdk-cli' || env['CLAUDE_CODE_SESSION_ATTENDED'] === '0';
	if (!isHeadless) return '';
	return JSON.stringify({
		hookSpecificOutput: {
			hookEventName: 'PreToolUse',
			permissionDecision: 'deny',
			permissionDecisionReason: `controlroom could not check this call against its hold policy (${message}); not run`,
		},
	});
}
