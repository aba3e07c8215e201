import {createHash} from 'node:crypto';
import {readFileSync} from 'node:fs';
import {dirname, resolve} from 'node:path';
import {parse as parseYaml} from 'yaml';
import {parseWorkOrder, type WorkOrder} from '../../core/effects/order.ts';

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
	let bytes: Buffer;
	try {
		bytes = readFileSync(file);
	} catch (error) {
		const code = (error as {code?: string}).code;
		throw new OrderFileError(
			code === 'ENOENT' ? `order file ${file}: no such file` : `order file ${file}: cannot read it (${code ?? 'error'})`,
		);
	}
	return orderFromSource(bytes.toString('utf8'), file);
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
