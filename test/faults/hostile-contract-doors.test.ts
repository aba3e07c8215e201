import {execFileSync, spawnSync} from 'node:child_process';
import {existsSync, symlinkSync, truncateSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {checkContractText} from '../../src/handoff/check-contract.ts';
import {BIN, scratchDir} from '../helpers/cli.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';
import {runAsPerson} from '../helpers/person.ts';

// The contract doors this change added (normalize, ready, check --json of any shape) and the text
// entry point take what an agent could have written as docs/security.md says: no link followed, no
// FIFO waited on, nothing unbounded, UTF-8 only, no alias bomb, no NUL; one line, no secret.

const SECRET = 'ghp_Hq3Vd8Mw2Lx7Ns4Ty9Bz1Ck6Fp0Rj5Ge3Ua8';

function aliasBomb(): string {
	const lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x","x"]'];
	for (let level = 1; level < 9; level += 1)
		lines.push(`a${level}: &a${level} [${Array.from({length: 10}, () => `*a${level - 1}`).join(',')}]`);
	return `kind: task\n${lines.join('\n')}\n`;
}

const CASES: readonly {name: string; file: string; plant: (path: string, dir: string) => void; reason: RegExp}[] = [
	{
		name: 'a 50 MB contract',
		file: 'huge.md',
		plant: path => (writeFileSync(path, '---\nkind: task\n---\n'), truncateSync(path, 50 * 1024 * 1024)),
		reason: /is too large \(52428800 bytes; the limit is 1048576\)/,
	},
	{
		name: 'a FIFO',
		file: 'fifo.md',
		plant: path => void execFileSync('sh', ['-c', 'mkfifo "$1"', 'sh', path]),
		reason: /is a FIFO, not a regular file/,
	},
	{
		name: 'a link to a file holding a secret',
		file: 'linked.yaml',
		plant: (path, dir) => {
			writeFileSync(join(dir, 'secret.txt'), `token: ${SECRET}\n`);
			symlinkSync(join(dir, 'secret.txt'), path);
		},
		reason: /is a symbolic link \(not followed\)/,
	},
	{
		name: 'invalid UTF-8',
		file: 'latin1.md',
		plant: path => writeFileSync(path, Buffer.from('---\nkind: task\n---\n## Goal\n\nCaf\xe9\n', 'latin1')),
		reason: /is not valid UTF-8 text/,
	},
	{
		name: 'a YAML alias bomb',
		file: 'bomb.yaml',
		plant: path => writeFileSync(path, aliasBomb()),
		reason: /more than 100 YAML aliases/,
	},
	{
		name: 'a NUL byte',
		file: 'nul.md',
		plant: path => writeFileSync(path, `---\nkind: task\n---\n## Goal\n\nship it\u0000 ${SECRET}\n`),
		reason: /holds a NUL byte: not a text file/,
	},
];

describe('hostile contract files at every door', {timeout: 120_000}, () => {
	it.each(CASES)(
		'$name: one line, exit 1, no secret, no hang (check, check --json, normalize, ready)',
		({file, plant, reason}) => {
			const dir = scratchDir('cr-hostile-door-');
			const path = join(dir, file);
			plant(path, dir);
			const env = {...process.env, CONTROLROOM_HOME: join(dir, 'home')};
			// A hang is a run killed by the timeout: its status is null, never 1.
			const cli = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], {env, encoding: 'utf8', timeout: 20_000});
			const line = new RegExp(`^${path}: not read as a contract: ${reason.source}[^\\n]*\\n$`);
			for (const args of [
				['contract', 'check', path],
				['contract', 'normalize', path],
			]) {
				const result = cli(...args);
				expect(result.status, `${args.join(' ')}: ${result.stderr}`).toBe(1);
				expect(result.stdout).toMatch(line);
				expect(result.stdout + result.stderr).not.toContain(SECRET);
			}
			const json = cli('contract', 'check', path, '--json');
			expect(json.status).toBe(1);
			expect(JSON.parse(json.stdout)).toMatchObject({valid: false, contract: null, problems: [{field: '(file)'}]});
			expect(json.stdout).not.toContain(SECRET);
			expect(existsSync(join(dir, file.replace(/\.(md|yaml)$/, '.canonical.yaml')))).toBe(false);
			const ready = runAsPerson(['contract', 'ready', path, '--ledger', freshLedgerFile()], {
				env: {CONTROLROOM_HOME: join(dir, 'home')},
			});
			expect(ready.status).toBe(1);
			expect(ready.stderr).toMatch(
				new RegExp(`^controlroom: ${path}: not read as a contract: ${reason.source}[^\\n]*; not made ready\\n$`),
			);
			expect(ready.stderr).not.toContain(SECRET);
		},
	);

	it('the text entry point refuses text over the limit and a NUL byte in one problem, naming the source', () => {
		const big = checkContractText({
			text: `kind: task\ngoal: ${'x'.repeat(1024 * 1024)}\n`,
			name: 'chat:42',
			baseDir: scratchDir(),
		});
		expect(big.problems).toEqual([
			{severity: 'error', field: '(file)', message: 'chat:42: is too large (the limit is 1048576 bytes)'},
		]);
		const nul = checkContractText({text: `kind: task\ngoal: a\u0000b ${SECRET}\n`, name: 'chat:43', baseDir: scratchDir()});
		expect(nul.problems).toEqual([{severity: 'error', field: '(file)', message: 'chat:43: holds a NUL byte: not a text file'}]);
		expect(JSON.stringify(nul)).not.toContain(SECRET.slice(4));
	});

	it('the text entry point reads a chat-pasted Markdown task with no file name by its first line', () => {
		const text =
			'## Goal\n\nThe footer shows the build number.\n\n## Context\n\nThe footer is `src/ui/footer.tsx`.\n\n## Acceptance\n\n- `npm test -- footer` passes\n';
		const checked = checkContractText({text, name: 'chat:44', baseDir: scratchDir()});
		expect(checked).toMatchObject({format: 'markdown', shape: 'markdown', kind: 'task', isValid: true});
		expect(checked.problems).toEqual([
			{
				severity: 'warning',
				field: 'kind',
				message: 'not written: read as a task (only a task has goal); add kind: task to say so',
			},
		]);
	});
});
