/** Compile-time exhaustiveness check for switches over closed unions. */
export function assertNever(value: never): never {
	throw new Error(`unexpected value: ${JSON.stringify(value)}`);
}
