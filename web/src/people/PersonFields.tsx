import { Group, MultiSelect, Switch, TextInput, Textarea } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import type { SpaceOut } from '@svc/shared';
import { useT } from '../i18n';
import { spaceOptions, spaceTree } from '../spaces/tree';
import { timeInputHelp } from './datetime';
import type { Draft } from './draft';

type DraftForm = UseFormReturnType<Draft>;

/** Who the person is: name, ID number, phone, notes. */
export function IdentityFields({ form }: { form: DraftForm }) {
  const t = useT();
  return (
    <>
      {/* No HTML maxLength: it would cut a pasted text short without a word; the shared
          schema's "at most N characters" shows under the field instead. */}
      <TextInput label={t('people.name')} required {...form.getInputProps('name')} />
      <TextInput
        label={t('people.idNumber')}
        description={t('people.form.idNumberHelp')}
        required
        {...form.getInputProps('idNumber')}
      />
      <TextInput
        label={t('people.phone')}
        description={t('people.form.phoneHelp')}
        {...form.getInputProps('phone')}
      />
      <Textarea label={t('people.notes')} autosize minRows={2} {...form.getInputProps('notes')} />
    </>
  );
}

/** Where and when the person is let in: spaces (as a tree), the validity range, enabled. */
export function AccessFields({ form, spaces }: { form: DraftForm; spaces: SpaceOut[] }) {
  const t = useT();
  const depth = new Map(spaceTree(spaces).map((node) => [node.space.id, node.depth]));
  return (
    <>
      <MultiSelect
        label={t('people.spaces')}
        description={t('people.form.spacesHelp')}
        data={spaceOptions(spaces)}
        renderOption={({ option }) => (
          <span style={{ paddingLeft: `${(depth.get(option.value) ?? 0) * 16}px` }}>
            {option.label}
          </span>
        )}
        {...form.getInputProps('spaceIds')}
        searchable
        clearable
      />
      <Group grow align="start">
        <TextInput
          type="datetime-local"
          label={t('people.validFrom')}
          name="validFrom"
          description={timeInputHelp()}
          {...form.getInputProps('validFrom')}
        />
        <TextInput
          type="datetime-local"
          label={t('people.validUntil')}
          name="validUntil"
          description={timeInputHelp()}
          {...form.getInputProps('validUntil')}
        />
      </Group>
      <Switch
        label={t('people.enabled')}
        {...form.getInputProps('enabled', { type: 'checkbox' })}
      />
    </>
  );
}
