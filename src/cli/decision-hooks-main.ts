// The decision queue's two hooks, bundled on their own as the record hook is (docs/decisions.md,
// "What the hooks cost"): bin/controlroom runs `hold-hook` and `permission-hook` from this bundle,
// never loading the CLI's command table, React or Ink. A held `claude -p` waits for the hold hook
// at every tool call, so each hook loads only its own code.

/** `argv` is the verb and its words, as bin/controlroom got them. */
export async function main(argv: readonly string[]): Promise<number> {
	const [verb, ...rest] = argv;
	const command =
		verb === 'hold-hook'
			? await import('./commands/hold-hook.ts')
			: verb === 'collision-hook'
				? await import('./commands/collision-hook.ts')
				: await import('./commands/permission-hook.ts');
	return command.run(rest);
}
