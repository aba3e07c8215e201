import * as z from 'zod';

/** An unresolved `<placeholder>`, as the templates write them. */
export const PLACEHOLDER = /<[^<>\s][^<>\n]*>/;
const WHOLE_PLACEHOLDER = /^\s*<[^<>\s][^<>\n]*>\s*$/;

function isMapping(value: unknown): value is Record<string, unknown> {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The object schema inside optional/nullable wrappers, if it is one. */
function objectShape(schema: z.ZodType): Record<string, z.ZodType> | null {
	let inner: z.ZodType = schema;
	while (inner instanceof z.ZodOptional || inner instanceof z.ZodNullable) inner = inner.unwrap() as z.ZodType;
	return inner instanceof z.ZodObject ? (inner.shape as Record<string, z.ZodType>) : null;
}

/**
 * A copy of `document` without the optional fields that still hold only a template placeholder
 * (`sample_output: <optional>`): a template's optional lines may stay as they were written, and
 * read as absent. Required fields keep their placeholder, which the placeholder rule flags. Keys
 * the schema does not know (free-form sections) are optional too.
 */
export function dropOptionalPlaceholders(document: unknown, schema: z.ZodType): unknown {
	const shape = objectShape(schema);
	if (shape === null || !isMapping(document)) return document;
	const kept: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(document)) {
		const field = shape[key];
		const isOptional = field === undefined || field instanceof z.ZodOptional;
		if (isOptional && typeof value === 'string' && WHOLE_PLACEHOLDER.test(value)) continue;
		if (field === undefined && isMapping(value)) {
			const inner = Object.fromEntries(
				Object.entries(value).filter(([, child]) => !(typeof child === 'string' && WHOLE_PLACEHOLDER.test(child))),
			);
			if (Object.keys(inner).length > 0) kept[key] = inner;
			continue;
		}
		kept[key] = field === undefined ? value : dropOptionalPlaceholders(value, field);
	}
	return kept;
}
