import {execFileSync} from 'node:child_process';
import {linkSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {AgentFileError, readAgentFile, readAgentText, replaceOwnFile} from '../../src/ledger/agent-files.ts';

const scratch = (): string => mkdtempSync(join(tmpdir(), 'cr-agent-files-'));

const problemOf = (read: () => unknown): string => {
	try {
		read();
	} catch (error) {
		if (error instanceof AgentFileError) return error.problem;
		throw error;
	}
	return 'read';
};

describe('a file an agent could have written', () => {
	it.each([
		['a regular file', (dir: string) => writeFileSync(join(dir, 'f'), 'ok'), 'read'],
		['nothing', () => undefined, 'missing'],
		[
			'a link to a secret',
			(dir: string) => (writeFileSync(join(dir, 'secret'), 'key'), symlinkSync(join(dir, 'secret'), join(dir, 'f'))),
			'link',
		],
		['a link to /dev/zero', (dir: string) => symlinkSync('/dev/zero', join(dir, 'f')), 'link'],
		['a FIFO', (dir: string) => execFileSync('sh', ['-c', 'mkfifo "$1"', 'sh', join(dir, 'f')]), 'fifo'],
		['a folder', (dir: string) => mkdirSync(join(dir, 'f')), 'folder'],
		['a file over the limit', (dir: string) => writeFileSync(join(dir, 'f'), Buffer.alloc(2049)), 'too large'],
	])('is %s: %s', (_name, plant, expected) => {
		// Given a name an agent planted something under
		const dir = scratch();
		plant(dir);
		// When it is read with a 2 KiB limit
		// Then it is read only when it is a regular file within the limit, and nothing blocks on a FIFO
		expect(problemOf(() => readAgentFile(join(dir, 'f'), 2048))).toBe(expected);
	});

	it('is refused as a device when it is one', () => {
		expect(problemOf(() => readAgentFile('/dev/zero', 2048))).toBe('device');
	});

	it('is read as strict UTF-8: Latin-1 is refused, never guessed', () => {
		const dir = scratch();
		writeFileSync(join(dir, 'utf8'), 'café');
		writeFileSync(join(dir, 'latin1'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
		expect(readAgentText(join(dir, 'utf8'), 100)).toBe('café');
		expect(problemOf(() => readAgentText(join(dir, 'latin1'), 100))).toBe('not UTF-8');
	});

	it('names the file and the problem in its message, never the content', () => {
		const dir = scratch();
		writeFileSync(join(dir, 'f'), 'sk-secret-value'.repeat(200));
		expect(() => readAgentFile(join(dir, 'f'), 100)).toThrow(`${join(dir, 'f')}: is too large (3000 bytes; the limit is 100)`);
	});
});

describe("controlroom's own file where an agent can write", () => {
	it('replaces a planted link or hard link instead of writing through it', () => {
		// Given a secret, and a symbolic link and a hard link to it under the names controlroom writes
		const dir = scratch();
		const secret = join(dir, 'secret');
		writeFileSync(secret, 'key');
		symlinkSync(secret, join(dir, 'soft.reason'));
		linkSync(secret, join(dir, 'hard.reason'));
		// When controlroom writes both
		replaceOwnFile(join(dir, 'soft.reason'), 'why');
		replaceOwnFile(join(dir, 'hard.reason'), 'why');
		// Then the secret is untouched and the names hold controlroom's own private files
		expect(readFileSync(secret, 'utf8')).toBe('key');
		expect(readFileSync(join(dir, 'soft.reason'), 'utf8')).toBe('why');
		expect(readFileSync(join(dir, 'hard.reason'), 'utf8')).toBe('why');
		expect(statSync(join(dir, 'hard.reason')).mode & 0o777).toBe(0o600);
	});
});
