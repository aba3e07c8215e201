import {spawn} from 'node:child_process';
import {existsSync, mkdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {scratchDir} from './cli.ts';
import {onFileChange, onOutput, waitFor} from './wait-for.ts';

describe('waitFor', () => {
	it('wakes on a file made in folders that did not exist when the wait began', async () => {
		// Given a wait, woken only by file events, for a file two folders below one that exists
		const root = scratchDir('cr-wait-');
		const file = join(root, 'a', 'b', 'ready');
		const found = waitFor(() => existsSync(file) && readFileSync(file, 'utf8'), {
			what: 'the file',
			timeoutMs: 5000,
			on: [onFileChange(file)],
		});
		// When the folders and then the file are made after it began
		mkdirSync(join(root, 'a'));
		mkdirSync(join(root, 'a', 'b'));
		writeFileSync(`${file}.tmp`, 'here');
		renameSync(`${file}.tmp`, file);
		// Then it resolves with the condition's value
		await expect(found).resolves.toBe('here');
	});

	it("wakes on a child's output", async () => {
		const child = spawn(process.execPath, ['-e', "process.stdin.once('data', () => process.stdout.write('go\\n'))"], {
			stdio: ['pipe', 'pipe', 'inherit'],
		});
		let said = '';
		child.stdout.on('data', (chunk: Buffer) => (said += chunk.toString()));
		const heard = waitFor(() => said.includes('go'), {what: 'go', timeoutMs: 5000, on: [onOutput(child.stdout)]});
		child.stdin.end('now\n');
		await expect(heard).resolves.toBe(true);
	});

	it('names what it waited for, and the state last seen, when it gives up', async () => {
		await expect(waitFor(() => false, {what: 'the moon', timeoutMs: 30, explain: () => 'no moon'})).rejects.toThrow(
			/^timed out after 30 ms waiting for the moon; last seen:\nno moon\n\(end\)$/,
		);
	});

	it('fails with the error when the condition throws, not with a timeout', async () => {
		const failing = waitFor(
			() => {
				throw new Error('broken condition');
			},
			{what: 'anything', timeoutMs: 10_000},
		);
		await expect(failing).rejects.toThrow('broken condition');
	});
});
