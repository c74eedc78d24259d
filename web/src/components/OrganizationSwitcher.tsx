import { Select } from '@mantine/core';
import type { SessionUser } from '@svc/shared';
import { useLocation, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { useT } from '../i18n';
import { saidFailure, say, type Said } from '../said';
import { listOrganizations } from '../organizations/api';
import { keys, useApiQuery } from '../query';
import { useSession } from '../session';
import { organizationName } from '../i18n/seeded';

/** The value of "All organizations" in the list (organization ids are UUIDs). */
const ALL = 'all';

/**
 * A superadmin's organization switcher: the organization chosen scopes every page (people,
 * spaces, devices, events, sync, import, administrators, audit) and receives what is created.
 * A detail page of the previous organization would answer "not found": the switch lands on the
 * list it belongs to.
 */
export function OrganizationSwitcher({
  user,
  sections,
}: {
  user: SessionUser;
  /** The navigation's top-level paths, to find the list a detail page belongs to. */
  sections: readonly string[];
}) {
  const t = useT();
  const { chooseOrganization } = useSession();
  const navigate = useNavigate();
  const path = useLocation({ select: (location) => location.pathname });
  const orgs = useApiQuery(keys.organizations, (signal) => listOrganizations(signal));
  const [problem, setProblem] = useState<Said | null>(null);
  const [switching, setSwitching] = useState(false);
  const current = user.workingOrganizationId ?? ALL;
  const data = [
    { value: ALL, label: t('organizations.all') },
    ...(orgs.data?.items ?? []).map((org) => ({
      value: org.id,
      label: organizationName(org.name),
    })),
  ];

  const choose = async (value: string | null) => {
    if (value === null || value === current) return;
    setSwitching(true);
    setProblem(null);
    try {
      const section = sections
        .filter((to) => to !== '/' && (path === to || path.startsWith(`${to}/`)))
        .sort((a, b) => b.length - a.length)[0];
      await chooseOrganization(value === ALL ? null : value);
      if (section !== undefined && section !== path) await navigate({ to: section });
    } catch (error) {
      setProblem(saidFailure(error));
    } finally {
      setSwitching(false);
    }
  };

  return (
    <Select
      aria-label={t('administrators.organization')}
      title={t('organizations.workingIn')}
      data={data}
      value={current}
      onChange={(value) => void choose(value)}
      allowDeselect={false}
      disabled={switching}
      error={problem === null ? null : say(problem)}
      size="xs"
      w={{ base: 150, sm: 220 }}
      comboboxProps={{ withinPortal: true }}
      data-testid="organization-switcher"
    />
  );
}
