// The ESM file bin/controlroom imports for `hold-hook` and `permission-hook`. The hooks are bundled
// as CommonJS (decision-hooks.cjs), as the record hook is (src/producers/agent-hook/hook-entry.ts
// says why). A broken install (better-sqlite3 built for another Node) must still answer safely:
// the hold hook then denies a headless run's call with the reason, and the permission hook prints
// nothing, so Claude's own dialog answers.
import {createRequire} from 'node:module';
import {holdFaultAnswer} from './hold-fault.ts';

type HooksModule = {main(argv: readonly string[]): Promise<number>};

function load(): HooksModule {
	try {
		return createRequire(import.meta.url)('./decision-hooks.cjs') as HooksModule;
	} catch (error) {
		const message = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
		return {
			main: argv => {
				process.stderr.write(`controlroom ${argv[0] ?? 'hook'}: cannot load the hook (${message})\n`);
				const answer = argv[0] === 'hold-hook' ? holdFaultAnswer(`cannot load the hook: ${message}`) : '';
				if (answer !== '') process.stdout.write(`${answer}\n`);
				return Promise.resolve(0);
			},
		};
	}
}

/** Runs the bundled hook named by argv[0]; see decision-hooks-main.ts. */
export const {main} = load();
