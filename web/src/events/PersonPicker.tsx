import { Select } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { getPerson, listPeople } from '../people/api';
import { useT } from '../i18n';
import { keys, useApiQuery } from '../query';

/** A person chosen by typing a name or ID-number prefix (searched on the server). */
export function PersonPicker({
  value,
  onChange,
}: {
  value: string | null;
  onChange: (personId: string | null) => void;
}) {
  const t = useT();
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search, 250);
  const found = useApiQuery(
    [...keys.people, 'pick', debounced],
    (signal) => listPeople({ q: debounced.trim() || undefined, page: 1, pageSize: 20 }, signal),
    { keepPrevious: true },
  );
  // The chosen person stays an option (with its name) whatever the search shows.
  const chosen = useApiQuery(keys.person(value ?? 'none'), (signal) =>
    value === null ? Promise.resolve(null) : getPerson(value, signal),
  );
  const options = new Map<string, string>();
  if (chosen.data) options.set(chosen.data.id, `${chosen.data.name} (${chosen.data.idNumber})`);
  for (const person of found.data?.items ?? []) {
    options.set(person.id, `${person.name} (${person.idNumber})`);
  }

  return (
    <Select
      label={t('events.person')}
      placeholder={t('events.anyone')}
      data={[...options].map(([id, label]) => ({ value: id, label }))}
      value={value}
      onChange={onChange}
      searchable
      searchValue={search}
      onSearchChange={setSearch}
      filter={({ options: all }) => all}
      nothingFoundMessage={found.loading ? t('events.searching') : t('events.noOneMatches')}
      clearable
      w={260}
    />
  );
}
