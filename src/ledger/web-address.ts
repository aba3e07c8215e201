import {readFileSync, rmSync, writeFileSync} from 'node:fs';
import {basename, dirname, extname, join} from 'node:path';
import * as z from 'zod';
import {PRIVATE_FILE_MODE} from './private-files.ts';

// Where the running web board of a ledger listens, so `web link` prints a link to the server's own
// address, and a refusal under `approvals: passkey` the item's page (`ledger.web.json` beside the
// ledger, private): written when it listens, removed when it stops; a dead server's is ignored.

// Only an http(s) address is taken: a file written by anyone else (an escape code, a javascript:
// link) is never printed.
const AddressFile = z.object({
	url: z
		.string()
		.url()
		.refine(url => /^https?:\/\/[A-Za-z0-9.:[\]-]+\/[A-Za-z0-9._~/-]*$/.test(url)),
	pid: z.number().int().positive(),
});

export function webAddressPath(ledgerFile: string): string {
	return join(dirname(ledgerFile), `${basename(ledgerFile, extname(ledgerFile))}.web.json`);
}

export function writeWebAddress(ledgerFile: string, url: URL): void {
	writeFileSync(webAddressPath(ledgerFile), `${JSON.stringify({url: url.href, pid: process.pid})}\n`, {mode: PRIVATE_FILE_MODE});
}

export function removeWebAddress(ledgerFile: string): void {
	rmSync(webAddressPath(ledgerFile), {force: true});
}

function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'EPERM';
	}
}

/** The address of the web board running for this ledger, or null when none runs. */
export function readWebAddress(ledgerFile: string): URL | null {
	let text: string;
	try {
		text = readFileSync(webAddressPath(ledgerFile), 'utf8');
	} catch {
		return null;
	}
	let parsed: z.infer<typeof AddressFile>;
	try {
		parsed = AddressFile.parse(JSON.parse(text));
	} catch {
		return null;
	}
	return isAlive(parsed.pid) ? new URL(parsed.url) : null;
}
