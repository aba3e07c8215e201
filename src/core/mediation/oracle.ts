import type {Position} from './position.ts';
import type {Settlement} from './space.ts';

/**
 * What the engine may ask an agent, and nothing more (docs/mediation.md, "The protocol"): does this settlement reach
 * your floor, does this one beat (or equal) that one for you, and which of its options can you
 * never accept. The answers are yes, no, or the vetoed options: never a number.
 */
export type AgentOracle = {
	readonly agent: string;
	reachesFloor(settlement: Settlement): boolean;
	/** True when `a` is at least as good for this agent as `b`. */
	isAtLeastAsGood(a: Settlement, b: Settlement): boolean;
	/** The `item=option` pairs of the settlement this agent can never accept, in the settlement's item order. */
	vetoes(settlement: Settlement): readonly {readonly item: string; readonly option: string}[];
};

/** Wraps a position so that only the oracle's questions can be asked of it; weights and floor stay inside. */
export function oracleOf(position: Position): AgentOracle {
	const utility = (settlement: Settlement): number =>
		Object.entries(settlement).reduce(
			(total, [item, option]) => total + (position.weights[item] ?? 0) * (position.utilities[item]?.[option] ?? 0),
			0,
		);
	return {
		agent: position.agent,
		reachesFloor: settlement => utility(settlement) >= position.floor,
		isAtLeastAsGood: (a, b) => utility(a) >= utility(b),
		vetoes: settlement =>
			Object.entries(settlement)
				.filter(([item, option]) => position.never[item]?.includes(option) ?? false)
				.map(([item, option]) => ({item, option})),
	};
}
