import type { ReactElement } from 'react';
import { Trans } from 'react-i18next';
import { engineInstance } from './index';

/**
 * A catalog sentence with markup inside (`Enrollment: <b>{count}</b>`, a link in the middle):
 * the translation decides where the markup sits, never the code by gluing pieces together.
 */
export function Tx({
  k,
  values,
  components,
}: {
  /** The catalog key. */
  k: string;
  values?: Record<string, unknown>;
  /** The tags the text uses, by name: `{ b: <b />, a: <Link to="/system" /> }`. */
  components?: Record<string, ReactElement>;
}) {
  return <Trans i18n={engineInstance()} i18nKey={k} values={values} components={components} />;
}
