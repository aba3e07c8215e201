// The import graph of src/, components/ and hooks/, read with TypeScript's own pre-processor (every
// static, dynamic and type-only import counts: a circle of types is still a circle of modules).
import {existsSync, readdirSync, readFileSync, statSync} from 'node:fs';
import {dirname, join, relative, resolve} from 'node:path';
import ts from 'typescript';

/** The folders whose imports must form no circle (docs/architecture.md, "Rules the machine checks"). */
export const GRAPH_ROOTS = ['src', 'components', 'hooks'];

function sourceFiles(folder) {
	return readdirSync(folder).flatMap(name => {
		const path = join(folder, name);
		if (statSync(path).isDirectory()) return sourceFiles(path);
		return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
	});
}

/** The files a file imports, among the graph's own files (relative specifiers only). */
export function importsOf(file, text = readFileSync(file, 'utf8')) {
	const {importedFiles} = ts.preProcessFile(text, true, true);
	return importedFiles
		.filter(entry => entry.fileName.startsWith('.'))
		.map(entry => ({specifier: entry.fileName, target: resolve(dirname(file), entry.fileName)}))
		.filter(entry => existsSync(entry.target));
}

/** Every circle of imports, each as the files in it (a strongly connected component of two or more, or a file importing itself). */
export function importCircles(root) {
	const files = GRAPH_ROOTS.flatMap(folder => (existsSync(join(root, folder)) ? sourceFiles(join(root, folder)) : []));
	const edges = new Map(files.map(file => [file, importsOf(file).map(entry => entry.target)]));
	// Tarjan's algorithm, iterative so a deep graph cannot overflow the stack.
	let index = 0;
	const order = new Map();
	const low = new Map();
	const stack = [];
	const onStack = new Set();
	const circles = [];
	for (const start of files) {
		if (order.has(start)) continue;
		const work = [{file: start, next: 0}];
		order.set(start, index);
		low.set(start, index++);
		stack.push(start);
		onStack.add(start);
		while (work.length > 0) {
			const frame = work.at(-1);
			const targets = edges.get(frame.file) ?? [];
			if (frame.next < targets.length) {
				const target = targets[frame.next++];
				if (!edges.has(target)) continue;
				if (!order.has(target)) {
					order.set(target, index);
					low.set(target, index++);
					stack.push(target);
					onStack.add(target);
					work.push({file: target, next: 0});
				} else if (onStack.has(target)) low.set(frame.file, Math.min(low.get(frame.file), order.get(target)));
				continue;
			}
			work.pop();
			if (work.length > 0) low.set(work.at(-1).file, Math.min(low.get(work.at(-1).file), low.get(frame.file)));
			if (low.get(frame.file) !== order.get(frame.file)) continue;
			const component = [];
			let member;
			do {
				member = stack.pop();
				onStack.delete(member);
				component.push(member);
			} while (member !== frame.file);
			if (component.length > 1 || (edges.get(frame.file) ?? []).includes(frame.file))
				circles.push(component.map(file => relative(root, file)).sort());
		}
	}
	return circles;
}
