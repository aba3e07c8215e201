// An ESLint rule: no import circle anywhere in src/, components/ and hooks/ (docs/architecture.md,
// "Rules the machine checks"). The graph is read once per lint run, with every kind of import
// (static, dynamic, type-only); each import that closes a circle is reported where it is written.
import {resolve} from 'node:path';
import {importCircles, importsOf} from './import-graph.js';

let circlesByFile = null;

function circleOf(file) {
	if (circlesByFile === null) {
		circlesByFile = new Map();
		const root = process.cwd();
		for (const circle of importCircles(root)) {
			const members = circle.map(member => resolve(root, member));
			for (const member of members) circlesByFile.set(member, {members: new Set(members), names: circle});
		}
	}
	return circlesByFile.get(file) ?? null;
}

export const noImportCircle = {
	meta: {
		type: 'problem',
		docs: {description: 'no import circle between the files of src/, components/ and hooks/'},
		schema: [],
		messages: {
			circle:
				'This import closes an import circle ({{names}}): move what both sides need into a module of its own, or pass it in as a parameter.',
		},
	},
	create(context) {
		const file = resolve(context.filename);
		const circle = circleOf(file);
		if (circle === null) return {};
		const closing = new Set(
			importsOf(file, context.sourceCode.text)
				.filter(entry => circle.members.has(entry.target))
				.map(entry => entry.specifier),
		);
		const check = node => {
			if (node.source?.type === 'Literal' && closing.has(node.source.value))
				context.report({node: node.source, messageId: 'circle', data: {names: circle.names.join(', ')}});
		};
		return {ImportDeclaration: check, ImportExpression: check, ExportNamedDeclaration: check, ExportAllDeclaration: check};
	},
};
