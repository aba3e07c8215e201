// A refused call runs nothing, so nothing needs its arguments whole: what is recorded is enough to
// tell what the worker tried (docs/effects.md, "Bounds"). A worker that loops on refused calls
// would otherwise fill the ledger with their arguments (20 calls of 4 MB made an 84 MB ledger).

/** Arguments of a refused call whose JSON is longer than this are kept as an excerpt. */
export const REFUSED_ARGS_EXCERPT_CHARS = 1024;

/** Refused calls one order may make; past it every call of the order is refused, and recorded without arguments. */
export const REFUSAL_BUDGET = 20;

/** A refused call's arguments as recorded: whole when short, else the start of their JSON, cut with …, and its length. */
export function refusedArgsRecord(args: unknown, isOverBudget = false): unknown {
	const text = JSON.stringify(args) ?? 'null';
	if (isOverBudget) return {omitted: true, chars: text.length};
	if (text.length <= REFUSED_ARGS_EXCERPT_CHARS) return args;
	return {excerpt: `${text.slice(0, REFUSED_ARGS_EXCERPT_CHARS - 1)}…`, chars: text.length};
}

/** Why a call is refused once the order has spent its refusal budget. */
export const refusalBudgetSpent = (refusals: number): string =>
	`the order's refusal budget of ${REFUSAL_BUDGET} refused calls is spent (${refusals} refused): every later call is refused; ask for a new order`;
