import {readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs';
import {dirname, join} from 'node:path';
import type {PasskeyItemKind} from '../../core/passkey/signed-answer.ts';

// Where a person answers an item with a passkey: the web page's item link (docs/passkeys.md).
// `controlroom web` writes its address beside the ledger while it listens (recordWebAddress);
// a refusal under `approvals: passkey` and the board's `a` read it to print the item's link.

/** The file beside the ledger that holds the running web page's address. */
export function webAddressFile(ledgerPath: string): string {
	return join(dirname(ledgerPath), 'web-address');
}

/** Records the page's address (`http://localhost:PORT`) while a server listens; null removes it. */
export function recordWebAddress(ledgerPath: string, address: string | null): void {
	const file = webAddressFile(ledgerPath);
	if (address === null) {
		rmSync(file, {force: true});
		return;
	}
	const temporary = `${file}.${process.pid}`;
	writeFileSync(temporary, `${address}\n`, {mode: 0o600});
	renameSync(temporary, file);
}

/** The page's address, or null when no server recorded one (or the file is not an address). */
export function readWebAddress(ledgerPath: string): string | null {
	try {
		const text = readFileSync(webAddressFile(ledgerPath), 'utf8').slice(0, 300).trim();
		return /^https?:\/\/[A-Za-z0-9.:[\]-]+(\/[A-Za-z0-9._~/-]*)?$/.test(text) ? text.replace(/\/$/, '') : null;
	} catch {
		return null;
	}
}

/** An item's page, relative to the server: `/item/decision/d-3f2a…`. */
export function itemPath(kind: PasskeyItemKind, id: string): string {
	return `/item/${kind}/${encodeURIComponent(id)}`;
}

/** The item's full link when a server recorded its address, else how to reach it. */
export function itemLink(ledgerPath: string, kind: PasskeyItemKind, id: string): string {
	const address = readWebAddress(ledgerPath);
	return address === null ? `\`controlroom web\`, then ${itemPath(kind, id)}` : `${address}${itemPath(kind, id)}`;
}
