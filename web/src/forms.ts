import type { FormErrors } from '@mantine/form';
import { zod4Resolver } from 'mantine-form-zod-resolver';
import type { z } from 'zod';

/**
 * A `@mantine/form` validator from a shared zod schema (the server's own rule, never a copy),
 * for a form whose values are the schema's input in form shape (text boxes hold strings).
 */
export function schemaResolver<Values>(
  schema: z.ZodType,
  /** The request body the values become (an empty optional box is left out, say). */
  toBody: (values: Values) => object = (values) => values as object,
): (values: Values) => FormErrors {
  const resolve = zod4Resolver(schema);
  return (values) => resolve(toBody(values) as Record<string, unknown>);
}
