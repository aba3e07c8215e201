import type {PasskeyItemKind} from '../../core/passkey/signed-answer.ts';
import {readWebAddress} from '../../ledger/web-address.ts';

// Where a person answers an item with a passkey: the web page's item link (docs/passkeys.md).
// `controlroom web` records its address beside the ledger while it listens (ledger/web-address.ts);
// a refusal under `approvals: passkey` reads it to print the item's link.

/** An item's page, relative to the server: `/decision/d-3f2a…` (the web board's question page). */
export function itemPath(kind: PasskeyItemKind, id: string): string {
	return `/${kind}/${encodeURIComponent(id)}`;
}

/** The item's full link when a server recorded its address, else how to reach it. */
export function itemLink(ledgerPath: string, kind: PasskeyItemKind, id: string): string {
	const address = readWebAddress(ledgerPath);
	return address === null ? `\`controlroom web\`, then ${itemPath(kind, id)}` : new URL(itemPath(kind, id), address).href;
}
