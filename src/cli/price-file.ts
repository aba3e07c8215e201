import {dirname, join, resolve} from 'node:path';
import {ConfigError} from '../core/config.ts';
import {PriceTableError, shippedPriceTable, withUserPrices, type PriceTable} from '../core/price-table.ts';
import {CONFIG_EXIT, configPath, readSmallTextFile} from './config-file.ts';
import {CliError} from './errors.ts';

/** A price file is a table of a few hundred models at most. */
const MAX_PRICE_BYTES = 1024 * 1024;

/**
 * Where a user's prices are: `$CONTROLROOM_PRICES` when set and not empty, else `prices.json` beside
 * the config file (docs/tree-and-cost.md).
 */
export function pricesPath(env: NodeJS.ProcessEnv = process.env): string {
	const named = env['CONTROLROOM_PRICES'];
	return named ? resolve(named) : join(dirname(configPath(env)), 'prices.json');
}

let loaded: PriceTable | undefined;

/**
 * The price table in force: the shipped one, with the user's file laid over it when there is one.
 * Read once per process. A file that is wrong is the one line main prints, with exit 78 (as the
 * config file), never a cost computed from half a table.
 */
export function loadPriceTable(env: NodeJS.ProcessEnv = process.env): PriceTable {
	if (loaded !== undefined) return loaded;
	const path = pricesPath(env);
	try {
		const text = readSmallTextFile(path, 'prices', MAX_PRICE_BYTES);
		if (text === null) {
			loaded = shippedPriceTable();
			return loaded;
		}
		let value: unknown;
		try {
			value = JSON.parse(text);
		} catch (error) {
			throw new PriceTableError(`prices ${path}: not JSON (${(error as Error).message})`);
		}
		loaded = withUserPrices(value, `prices ${path}`);
		return loaded;
	} catch (error) {
		if (error instanceof ConfigError || error instanceof PriceTableError) throw new CliError(error.message, CONFIG_EXIT);
		throw error;
	}
}
