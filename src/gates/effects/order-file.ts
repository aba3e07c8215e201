import {createHash} from 'node:crypto';
import {dirname, resolve} from 'node:path';
import {parse as parseYaml} from 'yaml';
import {parseWorkOrder, type WorkOrder} from '../../core/effects/order.ts';
import {AgentFileError, decodeAgentText, readAgentFile} from '../../ledger/agent-files.ts';

/** The largest order file read (docs/effects.md, "Limits"): an order is a page of YAML. */
export const MAX_ORDER_BYTES = 1024 * 1024;

/** A work order read from its file, with what proves which file it was. */
export type LoadedOrder = {
	readonly order: WorkOrder;
	/** The file, absolute. */
	readonly file: string;
	/** sha256 of the file's bytes: an approval runs only under the order the effects were held under. */
	readonly digest: string;
	/** Upstreams run here unless their `cwd` says otherwise (relative to it). */
	readonly dir: string;
	/** The file's text: recorded when the gateway opens the order, and what an approval runs under. */
	readonly source: string;
};

/** An order file that cannot be used: the message names the file and every problem, on one line. */
export class OrderFileError extends Error {}

/** Reads and validates a work order file (YAML; JSON is YAML too). */
export function loadOrderFile(path: string): LoadedOrder {
	const file = resolve(path);
	// An agent can write where its order lives: no link followed, no FIFO waited on, UTF-8 only.
	let bytes: Buffer;
	let text: string;
	try {
		bytes = readAgentFile(file, MAX_ORDER_BYTES);
		text = decodeAgentText(file, bytes);
	} catch (error) {
		if (error instanceof AgentFileError) throw new OrderFileError(`order file ${error.message}`);
		throw error;
	}
	return orderFromSource(text, file);
}

/**
 * A work order from its text as recorded when its gateway opened it (`order.opened`): the order
 * held effects run under, whatever the file says now. `file` is where it was (relative `cwd`s).
 */
export function orderFromSource(source: string, file: string): LoadedOrder {
	let document: unknown;
	try {
		document = parseYaml(source, {prettyErrors: false});
	} catch (error) {
		throw new OrderFileError(`order file ${file}: not YAML: ${(error as Error).message.split('\n')[0]}`);
	}
	const parsed = parseWorkOrder(document);
	if (!parsed.isValid) throw new OrderFileError(`order file ${file} is not a valid work order: ${parsed.problems.join('; ')}`);
	return {order: parsed.order, file, digest: createHash('sha256').update(source).digest('hex'), dir: dirname(file), source};
}
