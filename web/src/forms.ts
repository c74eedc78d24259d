import type { FormErrors } from '@mantine/form';
import { issuesToMessages } from '@svc/shared';
import type { z } from 'zod';
import { translateMessage } from './i18n/errors';

/**
 * A `@mantine/form` validator from a shared zod schema (the server's own rule, never a copy),
 * for a form whose values are the schema's input in form shape (text boxes hold strings). Its
 * messages come from the shared catalog by code, in the site's language: in English word for
 * word what the server answers.
 */
export function schemaResolver<Values>(
  schema: z.ZodType,
  /** The request body the values become (an empty optional box is left out, say). */
  toBody: (values: Values) => object = (values) => values as object,
): (values: Values) => FormErrors {
  return (values) => {
    const body = toBody(values);
    const result = schema.safeParse(body);
    if (result.success) return {};
    const errors: FormErrors = {};
    for (const [path, m] of Object.entries(issuesToMessages(result.error.issues, body))) {
      errors[path] = translateMessage(m.code, m.params);
    }
    return errors;
  };
}
