// The ESM file bin/controlroom imports for `controlroom hook`. The hook itself is bundled as
// CommonJS (hook-main.cjs): `require` of node's builtins skips the ESM facades that load
// streams and more, and better-sqlite3 (CommonJS) loads without the export lexer. See docs/hooks.md.
import {createRequire} from 'node:module';

type HookModule = {main(argv: readonly string[]): Promise<number>};

function load(): HookModule {
	try {
		return createRequire(import.meta.url)('./hook-main.cjs') as HookModule;
	} catch (error) {
		// A broken install (say better-sqlite3 built for another Node) must still not fail the agent.
		const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
		return {
			main: async () => {
				process.stderr.write(`controlroom hook: cannot load the hook (${message}); the event was not recorded\n`);
				return 0;
			},
		};
	}
}

/** Runs the bundled hook; see hook-main.ts. */
export const {main} = load();
