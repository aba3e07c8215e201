import fc from 'fast-check';
import {describe, expect, it} from 'vitest';
import {mediate, type Transcript} from '../../src/core/mediation/engine.ts';
import {oracleOf} from '../../src/core/mediation/oracle.ts';
import type {Position} from '../../src/core/mediation/position.ts';
import {enumerateSettlements, spaceOf, type Settlement} from '../../src/core/mediation/space.ts';

/** Weighted utility, computed here independently of the engine's oracle. */
const utility = (position: Position, settlement: Settlement): number =>
	Object.entries(settlement).reduce(
		(total, [item, option]) => total + (position.weights[item] ?? 0) * (position.utilities[item]?.[option] ?? 0),
		0,
	);
const breaksNever = (position: Position, settlement: Settlement): boolean =>
	Object.entries(settlement).some(([item, option]) => position.never[item]?.includes(option) ?? false);
const isAcceptableTo = (position: Position, settlement: Settlement): boolean =>
	utility(position, settlement) >= position.floor && !breaksNever(position, settlement);

/** Random contested items (1–3, each with 2–3 options) and 2–3 agents' positions over them. */
const positionsArbitrary = fc
	.record({items: fc.integer({min: 1, max: 3}), options: fc.integer({min: 2, max: 3}), agents: fc.integer({min: 2, max: 3})})
	.chain(({items, options, agents}) => {
		const itemNames = Array.from({length: items}, (_, i) => `item-${i + 1}`);
		const optionNames = Array.from({length: options}, (_, i) => `opt-${String.fromCharCode(97 + i)}`);
		// Tenths, so ties between settlements (and between agents' answers) are common.
		const tenth = fc.integer({min: 0, max: 10}).map(n => n / 10);
		const position = (agent: string) =>
			fc
				.record({
					utilities: fc.tuple(...itemNames.map(() => fc.tuple(...optionNames.map(() => tenth)))),
					raw: fc.tuple(...itemNames.map(() => fc.integer({min: 1, max: 5}))),
					floor: tenth,
					never: fc.tuple(...itemNames.map(() => fc.option(fc.constantFrom(...optionNames), {freq: 4}))),
				})
				.map(({utilities, raw, floor, never}): Position => {
					const total = raw.reduce((sum, n) => sum + n, 0);
					return {
						agent,
						utilities: Object.fromEntries(
							itemNames.map((item, i) => [item, Object.fromEntries(optionNames.map((option, j) => [option, utilities[i]![j]!]))]),
						),
						weights: Object.fromEntries(itemNames.map((item, i) => [item, raw[i]! / total])),
						floor,
						never: Object.fromEntries(itemNames.flatMap((item, i) => (never[i] ? [[item, [never[i]]]] : []))),
					};
				});
		const agentNames = Array.from({length: agents}, (_, i) => `agent-${String.fromCharCode(122 - i)}`);
		return fc.tuple(...agentNames.map(position)).map(positions => ({positions, itemNames, optionNames}));
	});

function run(positions: readonly Position[], itemNames: readonly string[], optionNames: readonly string[]): Transcript {
	return mediate(positions.map(oracleOf), spaceOf(Object.fromEntries(itemNames.map(item => [item, optionNames]))));
}

describe('the mediator, on random positions', () => {
	it('settles only on what meets every floor and breaks no constraint', () => {
		fc.assert(
			fc.property(positionsArbitrary, ({positions, itemNames, optionNames}) => {
				const transcript = run(positions, itemNames, optionNames);
				if (transcript.agreement === null) return;
				for (const position of positions) expect(isAcceptableTo(position, transcript.agreement)).toBe(true);
			}),
			{numRuns: 400},
		);
	});

	it('gives the same transcript whatever order the positions come in', () => {
		fc.assert(
			fc.property(positionsArbitrary, fc.integer(), ({positions, itemNames, optionNames}, seed) => {
				const shuffled = [...positions].sort(
					(a, b) => ((a.agent.charCodeAt(6) * seed) % 7) - ((b.agent.charCodeAt(6) * seed) % 7),
				);
				const reversedItems = [...itemNames].reverse();
				const reversedOptions = [...optionNames].reverse();
				expect(JSON.stringify(run(shuffled, reversedItems, reversedOptions))).toBe(
					JSON.stringify(run(positions, itemNames, optionNames)),
				);
			}),
			{numRuns: 300},
		);
	});

	it('never offers or settles on an option after it was vetoed', () => {
		fc.assert(
			fc.property(positionsArbitrary, ({positions, itemNames, optionNames}) => {
				const transcript = run(positions, itemNames, optionNames);
				for (const veto of transcript.vetoes) {
					const later = transcript.offers.filter(entry => entry.n > veto.offer);
					for (const entry of later) expect(entry.offer[veto.item]).not.toBe(veto.option);
					if (transcript.agreement) expect(transcript.agreement[veto.item]).not.toBe(veto.option);
				}
			}),
			{numRuns: 400},
		);
	});

	it('walks away exactly when no settlement is acceptable to everyone', () => {
		fc.assert(
			fc.property(positionsArbitrary, ({positions, itemNames, optionNames}) => {
				const transcript = run(positions, itemNames, optionNames);
				const space = spaceOf(Object.fromEntries(itemNames.map(item => [item, optionNames])));
				const hasCommonGround = enumerateSettlements(space).some(settlement =>
					positions.every(position => isAcceptableTo(position, settlement)),
				);
				expect(transcript.outcome).toBe(hasCommonGround ? 'agreement' : 'walk-away');
			}),
			{numRuns: 400},
		);
	});

	it('records no utility, weight or floor: the only numbers are offer and round counts', () => {
		fc.assert(
			fc.property(positionsArbitrary, ({positions, itemNames, optionNames}) => {
				const numbers: string[] = [];
				JSON.stringify(run(positions, itemNames, optionNames), (key, value: unknown) => {
					if (typeof value === 'number') numbers.push(key);
					return value;
				});
				for (const key of numbers) expect(['n', 'round', 'offer', 'rounds']).toContain(key);
			}),
			{numRuns: 200},
		);
	});
});
