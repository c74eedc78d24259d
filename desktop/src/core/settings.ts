import { z } from 'zod';
import { DEFAULT_DISCOVERY_PORT, DEFAULT_DISCOVERY_TIMEOUT_S, httpUrl, port } from '@svc/shared';

export interface ConsoleSettings {
  /** UDP port terminals announce on (the central service's DISCOVERY_PORT). */
  discoveryPort: number;
  /** Seconds without an announce before a terminal leaves the list (DISCOVERY_TIMEOUT). */
  discoveryTimeoutS: number;
  /**
   * Where probes go (DISCOVERY_PROBE_ADDRESSES, comma-separated IPv4), e.g. one site subnet's
   * broadcast; null: 255.255.255.255 plus every local subnet broadcast.
   */
  probeAddresses: string[] | null;
  /** Where the web layer fetches the site's pages (CONSOLE_SITE_URL); null: the central address. */
  siteUrl: string | null;
  /** The browser shell's HTTP port on 127.0.0.1 (CONSOLE_PORT, or `--port`); null: any free one. */
  httpPort: number | null;
  /**
   * Where diagnostics ask a silent terminal (TERMINAL_MANAGEMENT_PORTS, comma-separated; null:
   * PROTOCOL §2's 8182 and 8181), for terminals or simulators on other ports.
   */
  managementPorts: number[] | null;
}

const fromText = (schema: z.ZodType<number, number>) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(schema)
    .optional();

/** "a, b,,c" → ["a", "b", "c"]: a comma-separated list, blanks dropped. */
const commaList = z.string().transform((text) =>
  text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== ''),
);

const addressList = commaList
  .pipe(z.array(z.ipv4()).min(1, 'must name at least one IPv4 address'))
  .optional();

const envSchema = z.object({
  DISCOVERY_PORT: fromText(port),
  DISCOVERY_TIMEOUT: fromText(z.number().int().min(1).max(86_400)),
  DISCOVERY_PROBE_ADDRESSES: addressList,
  CONSOLE_SITE_URL: httpUrl.optional(),
  CONSOLE_PORT: fromText(port),
  TERMINAL_MANAGEMENT_PORTS: commaList
    .pipe(
      z
        .array(z.string().regex(/^\d+$/, 'must be whole numbers').transform(Number).pipe(port))
        .min(1),
    )
    .optional(),
});

export class SettingsError extends Error {}

/**
 * The console's settings from its environment, with the names and defaults the central service
 * uses, so a technician's laptop and the site agree. A bad value is an error, not a silent default.
 */
export function settingsFromEnv(env: Record<string, string | undefined>): ConsoleSettings {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.')}: ${issue.message}`,
    );
    throw new SettingsError(`invalid console settings: ${problems.join('; ')}`);
  }
  return {
    discoveryPort: parsed.data.DISCOVERY_PORT ?? DEFAULT_DISCOVERY_PORT,
    discoveryTimeoutS: parsed.data.DISCOVERY_TIMEOUT ?? DEFAULT_DISCOVERY_TIMEOUT_S,
    probeAddresses: parsed.data.DISCOVERY_PROBE_ADDRESSES ?? null,
    siteUrl: parsed.data.CONSOLE_SITE_URL ?? null,
    httpPort: parsed.data.CONSOLE_PORT ?? null,
    managementPorts: parsed.data.TERMINAL_MANAGEMENT_PORTS ?? null,
  };
}
