/**
 * Loads a module with some globals hidden, each put back before this resolves. Node 20 builds its
 * web globals (`fetch`, `Response`) on first touch by loading its whole HTTP client (undici),
 * 50 to 200 ms; some libraries touch them while loading only to find out where they run: Ink's
 * layout engine (yoga-layout) reads its inline WebAssembly through `fetch` when there is one, and
 * the PostgreSQL driver builds a `Response` to ask whether it runs on Cloudflare. Without them
 * both take their Node path, which they take anyway.
 */
export async function loadWithGlobalsHidden<T>(names: readonly string[], load: () => Promise<T>): Promise<T> {
	const hidden: [string, PropertyDescriptor][] = [];
	for (const name of names) {
		const property = Object.getOwnPropertyDescriptor(globalThis, name);
		if (!property?.configurable) continue;
		hidden.push([name, property]);
		Object.defineProperty(globalThis, name, {value: undefined, configurable: true, writable: true});
	}
	try {
		return await load();
	} finally {
		for (const [name, property] of hidden) Object.defineProperty(globalThis, name, property);
	}
}
