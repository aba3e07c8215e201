import {existsSync, statSync} from 'node:fs';
import type {RepositoryFacts} from '../core/contract/rules.ts';
import {createRepositoryFacts} from './repository-facts.ts';

// Contracts written from afar (a chat, another host) name their repository by a name or a remote
// URL, never by a path on this machine: the person's map (repositories.json, docs/serve.md,
// "Repositories") says which checkout each is here. Nothing a writer sends is resolved as a path.

/** A repository's name or URL → the absolute path of its checkout on this host. */
export type RepositoryMap = ReadonlyMap<string, string>;

/**
 * The key a name or URL is looked up by: a URL's host and path without scheme, user, `.git` or a
 * trailing slash (`https://github.com/ana/shop.git`, `git@github.com:ana/shop` and
 * `ssh://git@github.com/ana/shop` are all `github.com/ana/shop`); a plain name as written. Case is ignored.
 */
export function repositoryKey(name: string): string {
	let key = name.trim();
	const scp = key.match(/^[^/\s@]+@([^/\s:]+):(.+)$/);
	if (scp) key = `${scp[1]}/${scp[2]}`;
	else key = key.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/^[^/@]*@/, '');
	return key
		.replace(/\/+$/, '')
		.replace(/\.git$/i, '')
		.toLowerCase();
}

/** The checkout of a repository on this host, or null when the map has none. */
export function checkoutOf(map: RepositoryMap, name: string): string | null {
	return map.get(repositoryKey(name)) ?? null;
}

/** How long a checkout found to be a git work tree is taken as one without asking git again. */
const WORK_TREE_MS = 10_000;
const workTrees = new Map<string, number>();
/** Commits found in a checkout: a commit that exists stays (a long-lived server asks about the same few). */
const knownCommits = new Set<string>();

/**
 * Answers a stored contract's repository questions through the map: a mapped repository is checked
 * in its checkout; any other is `unmapped` (a warning: checked where pickup runs it). `named`: the
 * repository the writer gave beside the text (a tool's `repository`), which wins over the text's
 * own `context.repository`.
 */
export function mappedRepositoryFacts(map: RepositoryMap, named: string | null = null): RepositoryFacts {
	const inCheckout = (asked: string): string | null => {
		const checkout = checkoutOf(map, named ?? asked);
		return checkout !== null && existsSync(checkout) && statSync(checkout).isDirectory() ? checkout : null;
	};
	return {
		repository(asked) {
			const checkout = checkoutOf(map, named ?? asked);
			if (checkout === null) return 'unmapped';
			if ((workTrees.get(checkout) ?? 0) > Date.now() && existsSync(checkout)) return 'ok';
			const state = createRepositoryFacts(checkout).repository(checkout);
			if (state === 'ok') workTrees.set(checkout, Date.now() + WORK_TREE_MS);
			return state;
		},
		revisionExists(name, revision) {
			const checkout = inCheckout(name);
			if (checkout === null) return false;
			const key = `${checkout}\u0000${revision}`;
			if (knownCommits.has(key)) return true;
			const exists = createRepositoryFacts(checkout).revisionExists(checkout, revision);
			if (exists) knownCommits.add(key);
			return exists;
		},
		defines(name, requirement) {
			const checkout = inCheckout(name);
			return checkout !== null && createRepositoryFacts(checkout).defines(checkout, requirement);
		},
		// A contract that names no repository is of the one its call named, if any.
		defaultRepository: () => named,
		newestChange(name, base, paths) {
			const checkout = inCheckout(name);
			return checkout === null ? null : (createRepositoryFacts(checkout).newestChange?.(checkout, base, paths) ?? null);
		},
		fileInRepository(name, path) {
			const checkout = inCheckout(name);
			return checkout === null ? 'missing' : (createRepositoryFacts(checkout).fileInRepository?.(checkout, path) ?? 'missing');
		},
	};
}
