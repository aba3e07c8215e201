/**
 * One agent's private view of a value disagreement (docs/mediation.md, "The position file"): how much each option of each
 * contested item is worth to it, how much each item matters, the least it will settle for, and the
 * options it can never accept. Only its oracle (oracle.ts) reads it; the engine never does.
 */
export type Position = {
	readonly agent: string;
	/** Per item, the utility of each option, 0..1. */
	readonly utilities: Readonly<Record<string, Readonly<Record<string, number>>>>;
	/** Per item, its weight; the weights sum to 1. */
	readonly weights: Readonly<Record<string, number>>;
	/** Accept only settlements whose weighted utility reaches this. */
	readonly floor: number;
	/** Per item, options this agent can never accept. */
	readonly never: Readonly<Record<string, readonly string[]>>;
};

/** How far the weights may stray from summing to 1 (decimal fractions in YAML are not exact). */
const WEIGHT_SUM_TOLERANCE = 1e-6;

/** One problem with a set of positions, naming the agent and field; never a weight's value. */
export type PositionProblem = {readonly agent: string; readonly field: string; readonly message: string};

/** Checks one position on its own: items weighted, weights summing to 1, constraints on known options. */
export function checkPosition(position: Position): PositionProblem[] {
	const problems: PositionProblem[] = [];
	const add = (field: string, message: string): void => {
		problems.push({agent: position.agent, field, message});
	};
	const items = Object.keys(position.utilities);
	if (items.length === 0) add('utilities', 'names no contested item');
	for (const item of items) {
		const options = Object.keys(position.utilities[item] ?? {});
		if (options.length < 2) add(`utilities.${item}`, 'needs at least two options');
		if (!(item in position.weights)) add(`weights.${item}`, 'missing: every contested item needs a weight');
	}
	for (const item of Object.keys(position.weights)) {
		if (!(item in position.utilities)) add(`weights.${item}`, 'weights an item that has no utilities');
	}
	const sum = Object.values(position.weights).reduce((total, weight) => total + weight, 0);
	if (Math.abs(sum - 1) > WEIGHT_SUM_TOLERANCE) add('weights', 'must sum to 1');
	for (const [item, options] of Object.entries(position.never)) {
		const known = position.utilities[item];
		if (!known) {
			add(`never.${item}`, 'names an item that has no utilities');
			continue;
		}
		for (const option of options) {
			if (!(option in known)) add(`never.${item}`, `names an option '${option}' that item does not have`);
		}
	}
	return problems;
}

/** Every position must contest the same items with the same options, or there is nothing to settle jointly. */
export function checkSameSpace(positions: readonly Position[]): PositionProblem[] {
	const problems: PositionProblem[] = [];
	const names = new Set<string>();
	for (const position of positions) {
		if (names.has(position.agent))
			problems.push({agent: position.agent, field: 'agent', message: 'two positions name this agent'});
		names.add(position.agent);
	}
	const [first, ...rest] = positions;
	if (!first) return [{agent: '-', field: 'positions', message: 'at least two positions are needed'}];
	if (rest.length === 0) problems.push({agent: first.agent, field: 'positions', message: 'at least two positions are needed'});
	const shape = (position: Position): string =>
		JSON.stringify(
			Object.keys(position.utilities)
				.sort()
				.map(item => [item, Object.keys(position.utilities[item] ?? {}).sort()]),
		);
	const expected = shape(first);
	for (const position of rest) {
		if (shape(position) !== expected) {
			problems.push({
				agent: position.agent,
				field: 'utilities',
				message: `contests other items or options than ${first.agent}: every position must name the same items and options`,
			});
		}
	}
	return problems;
}
