// The ESM file bin/controlroom imports for `controlroom hook`. The hook itself is bundled as
// CommonJS (hook-main.cjs): `require` of node's builtins skips the ESM facades that load
// streams and more, and better-sqlite3 (CommonJS) loads without the export lexer. See docs/hooks.md.
import {createRequire} from 'node:module';

type HookModule = {main(argv: readonly string[]): Promise<number>};

/** Runs the bundled hook; see hook-main.ts. */
export const {main} = createRequire(import.meta.url)('./hook-main.cjs') as HookModule;
