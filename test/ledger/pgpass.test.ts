import {chmodSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {fleetPassword, passwordFromFile} from '../../src/ledger/fleet/pgpass.ts';
import {scratchDir} from '../helpers/cli.ts';

const TARGET = {host: 'fleet.example', port: 5432, database: 'fleet', user: 'ops'};

describe('the fleet password, as libpq reads a password file', () => {
	it('takes the first line that matches, * matching anything, \\: and \\\\ escaped', () => {
		const text = [
			'# comments and blank lines are skipped',
			'',
			'other.example:5432:fleet:ops:not-this',
			'fleet.example:5432:fleet:ops:pa\\:ss\\\\word',
			'*:*:*:*:too-late',
		].join('\n');
		expect(passwordFromFile(text, TARGET)).toBe('pa:ss\\word');
		expect(passwordFromFile(text, {...TARGET, user: 'someone'})).toBe('too-late');
		expect(passwordFromFile('fleet.example:5432:fleet:ops', TARGET)).toBeUndefined();
	});

	it('prefers PGPASSWORD, reads PGPASSFILE only at mode 0600, and never says the password', () => {
		const file = join(scratchDir('cr-pgpass-unit-'), 'pgpass');
		writeFileSync(file, '*:*:*:ops:from-the-file\n', {mode: 0o600});
		chmodSync(file, 0o600);
		expect(fleetPassword(TARGET, {PGPASSWORD: 'from-the-variable', PGPASSFILE: file})).toBe('from-the-variable');
		expect(fleetPassword(TARGET, {PGPASSFILE: file})).toBe('from-the-file');
		chmodSync(file, 0o640);
		expect(() => fleetPassword(TARGET, {PGPASSFILE: file})).toThrow(
			/can be read by others \(mode 640\): not read; chmod 600 it$/,
		);
		try {
			fleetPassword(TARGET, {PGPASSFILE: file});
		} catch (error) {
			expect((error as Error).message).not.toContain('from-the-file');
		}
	});
});
