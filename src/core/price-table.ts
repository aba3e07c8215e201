import shipped from './prices/prices-2026-12-01.json' with {type: 'json'};
import {terminalSafe} from './terminal-text.ts';

/** Prices of one model, per million tokens, in the table's currency. */
export type Prices = {
	readonly input: number;
	readonly output: number;
	readonly cacheWrite5m: number;
	readonly cacheWrite1h: number;
	readonly cacheRead: number;
};

/** One model's row: its prices, where they come from and of when; a long-prompt tier where the model has one. */
export type PriceRow = Prices & {
	readonly source: string;
	readonly asOf: string;
	readonly longPrompt: (Prices & {readonly above: number}) | null;
};

export type PriceTable = {
	readonly currency: string;
	readonly asOf: string;
	readonly sources: Readonly<Record<string, {readonly title: string; readonly url: string | null; readonly read: string}>>;
	readonly usGeoMultiplier: number;
	readonly aliases: Readonly<Record<string, string>>;
	readonly models: Readonly<Record<string, PriceRow>>;
};

/** A price table file (the shipped one, a user's) that is wrong: the one line that says where. */
export class PriceTableError extends Error {}

const PRICE_FIELDS = ['input', 'output', 'cacheWrite5m', 'cacheWrite1h', 'cacheRead'] as const;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const MAX_MODELS = 2000;

function isRecord(value: unknown): value is Record<string, unknown> {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function pricesOf(value: Record<string, unknown>, where: string): Prices {
	const prices: Record<string, number> = {};
	for (const field of PRICE_FIELDS) {
		const price = value[field];
		if (typeof price !== 'number' || !Number.isFinite(price) || price < 0) {
			throw new PriceTableError(
				`${where}: ${field} must be a price (a number of at least 0), not ${JSON.stringify(price) ?? 'missing'}`,
			);
		}
		prices[field] = price;
	}
	return prices as Prices;
}

function dateOf(value: unknown, where: string): string {
	if (typeof value !== 'string' || !DATE.test(value)) throw new PriceTableError(`${where}: asOf must be a date YYYY-MM-DD`);
	return value;
}

function rowOf(
	value: unknown,
	where: string,
	defaults: {readonly source: string | null; readonly asOf: string | null},
): PriceRow {
	if (!isRecord(value)) throw new PriceTableError(`${where}: a model's row must be an object`);
	const source = typeof value['source'] === 'string' && value['source'] !== '' ? value['source'] : defaults.source;
	if (source === null) throw new PriceTableError(`${where}: names no source`);
	const asOf = value['asOf'] === undefined && defaults.asOf !== null ? defaults.asOf : dateOf(value['asOf'], where);
	const long = value['longPrompt'];
	let longPrompt: PriceRow['longPrompt'] = null;
	if (long !== undefined && long !== null) {
		if (!isRecord(long)) throw new PriceTableError(`${where}.longPrompt: must be an object`);
		const above = long['above'];
		if (typeof above !== 'number' || !Number.isInteger(above) || above < 0) {
			throw new PriceTableError(`${where}.longPrompt: above must be a whole number of tokens`);
		}
		longPrompt = {...pricesOf(long, `${where}.longPrompt`), above};
	}
	return {...pricesOf(value, where), source, asOf, longPrompt};
}

/**
 * Checks a parsed price table (`name` says which, in errors). A user's table may leave out what the
 * shipped one gives: its rows then name the user's file as their source and its `asOf` as their date.
 */
export function parsePriceTable(value: unknown, name: string, base: PriceTable | null = null): PriceTable {
	if (!isRecord(value)) throw new PriceTableError(`${name}: a price table is a JSON object`);
	const currency = value['currency'] ?? base?.currency;
	if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency)) {
		throw new PriceTableError(`${name}: currency must be a three-letter code such as USD`);
	}
	if (base !== null && currency !== base.currency) {
		throw new PriceTableError(
			`${name}: currency ${currency} differs from the shipped table's ${base.currency}; prices cannot be mixed`,
		);
	}
	const asOf = value['asOf'] === undefined && base !== null ? null : dateOf(value['asOf'], name);
	const models = value['models'];
	if (!isRecord(models)) throw new PriceTableError(`${name}: models must be an object of model id to prices`);
	if (Object.keys(models).length > MAX_MODELS) throw new PriceTableError(`${name}: more than ${MAX_MODELS} models`);
	const rows: Record<string, PriceRow> = {};
	for (const [model, row] of Object.entries(models)) {
		rows[model] = rowOf(row, `${name}: models.${terminalSafe(JSON.stringify(model))}`, {
			source: base === null ? null : name,
			asOf,
		});
	}
	const aliases: Record<string, string> = {...base?.aliases};
	if (isRecord(value['aliases'])) {
		for (const [alias, target] of Object.entries(value['aliases'])) if (typeof target === 'string') aliases[alias] = target;
	}
	const sources: Record<string, {title: string; url: string | null; read: string}> = {...base?.sources};
	if (isRecord(value['sources'])) {
		for (const [key, source] of Object.entries(value['sources'])) {
			if (!isRecord(source)) continue;
			sources[key] = {
				title: typeof source['title'] === 'string' ? source['title'] : key,
				url: typeof source['url'] === 'string' ? source['url'] : null,
				read: typeof source['read'] === 'string' ? source['read'] : (asOf ?? ''),
			};
		}
	}
	const multiplier = value['usGeoMultiplier'] ?? base?.usGeoMultiplier ?? 1;
	if (typeof multiplier !== 'number' || !Number.isFinite(multiplier) || multiplier <= 0) {
		throw new PriceTableError(`${name}: usGeoMultiplier must be a positive number`);
	}
	return {
		currency,
		asOf: asOf ?? base?.asOf ?? '',
		sources,
		usGeoMultiplier: multiplier,
		aliases,
		models: {...base?.models, ...rows},
	};
}

let builtIn: PriceTable | undefined;

/** The table shipped with controlroom (src/core/prices/, dated; docs/tree-and-cost.md). */
export function shippedPriceTable(): PriceTable {
	builtIn ??= parsePriceTable(shipped, 'the shipped price table');
	return builtIn;
}

/** The shipped table with a user's file laid over it: its rows replace or add models, nothing else is mixed. */
export function withUserPrices(value: unknown, name: string): PriceTable {
	return parsePriceTable(value, name, shippedPriceTable());
}

/** A model's row: its own id, an alias, or its id without a date suffix (`claude-sonnet-4-5-20250929`). */
export function priceRowOf(table: PriceTable, model: string): PriceRow | null {
	const direct = table.models[model];
	if (direct) return direct;
	const alias = table.aliases[model];
	if (alias !== undefined && table.models[alias]) return table.models[alias] ?? null;
	const undated = model.replace(/-\d{8}$/, '');
	return undated !== model ? (table.models[undated] ?? null) : null;
}
