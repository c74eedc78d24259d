import { STEP_LOOK, stepTone, toneKey } from './step-look.js';
import { ReportStep } from './ReportStep.js';
import {
  Alert,
  Badge,
  Button,
  FileInput,
  Grid,
  Group,
  List,
  NativeSelect,
  Stack,
  Stepper,
  Text,
  TextInput,
  Textarea,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { AcceptanceState, LayerId, LayerInput } from '../../core/api.js';
import { consoleApi } from '../api/console-api.js';
import { confirmRefusal, layerTitle, localTime, redactedSaid } from '../../core/texts.js';
import { useT } from '../i18n.js';

type Layer = AcceptanceState['layers'][number];

async function fileBase64(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let text = '';
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text);
}

/** Where a layer stands, in words: a layer never run is not one waiting for a confirmation. */
const statusKey = (layer: Layer) => toneKey(stepTone(layer));

/** A step's icon: its tone's fill and mark (its number when never run); the active one ringed. */
function stepIcon(layer: Layer, n: number, active: boolean) {
  const look = STEP_LOOK[stepTone(layer)];
  return {
    icon: look.mark ?? String(n),
    style: {
      backgroundColor: look.fill,
      borderColor: look.fill,
      color: look.ink,
      ...(active && { outline: '2px solid #1c5592', outlineOffset: 2 }),
    },
  };
}

/**
 * The seed's eight layers as a stepper, then the handover report. The active layer's controls
 * and evidence sit beside the stepper, so Run and its result are in view together.
 */
export function AcceptancePage() {
  const t = useT();
  const qc = useQueryClient();
  const state = useQuery({ queryKey: ['acceptance'], queryFn: () => consoleApi.getAcceptance() });
  const [active, setActive] = useState(0);
  const layers = state.data?.layers ?? [];
  const update = (data: AcceptanceState) => qc.setQueryData(['acceptance'], data);
  const current = layers[active];
  const reportTitle = t('reportStep.title');
  return (
    <Grid gap="lg">
      {/* On a phone the vertical stepper would push Run below the fold: a picker instead. */}
      <Grid.Col span={12} hiddenFrom="md">
        <NativeSelect
          label={t('acceptance.pick')}
          value={String(active)}
          onChange={(e) => setActive(Number(e.currentTarget.value))}
          data={[
            ...layers.map((layer, i) => ({
              value: String(i),
              label: t('acceptance.pickItem', {
                n: i + 1,
                title: layerTitle(layer.id, layer.title),
                status: t(statusKey(layer)),
              }),
            })),
            { value: String(layers.length), label: `${layers.length + 1}. ${reportTitle}` },
          ]}
        />
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 4 }} visibleFrom="md">
        <Stepper
          active={active}
          onStepClick={setActive}
          orientation="vertical"
          allowNextStepsSelect
          size="sm"
          // Mantine dims step descriptions below AA contrast; the status is worth reading.
          styles={{ stepDescription: { color: 'var(--mantine-color-text)' } }}
        >
          {layers.map((layer, i) => {
            const look = stepIcon(layer, i + 1, i === active);
            return (
              <Stepper.Step
                key={layer.id}
                label={layerTitle(layer.id, layer.title)}
                description={t(statusKey(layer))}
                data-tone={stepTone(layer)}
                icon={look.icon}
                completedIcon={look.icon}
                progressIcon={look.icon}
                styles={{ stepIcon: look.style }}
              />
            );
          })}
          <Stepper.Step
            label={t('reportStep.title')}
            description={state.data?.report ? t('reportStep.made') : t('reportStep.notMade')}
            icon={String(layers.length + 1)}
            completedIcon={String(layers.length + 1)}
          />
        </Stepper>
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 8 }}>
        {current ? (
          <LayerStep
            key={current.id}
            layer={current}
            onDone={update}
            onNext={() => setActive(active + 1)}
          />
        ) : (
          layers.length > 0 && <ReportStep state={state.data} onDone={update} />
        )}
      </Grid.Col>
    </Grid>
  );
}

type Required = 'organization' | 'space' | 'person' | 'photo';
/** What a layer cannot run without (the central service would only say "not found"). */
const REQUIRED: Record<LayerId, Required[]> = {
  services: [],
  web: [],
  central: [],
  data: ['organization', 'space', 'person'],
  discovery: [],
  terminals: [],
  sync: ['space', 'photo'],
  recognition: [],
};

function LayerStep({
  layer,
  onDone,
  onNext,
}: {
  layer: Layer;
  onDone: (s: AcceptanceState) => void;
  onNext: () => void;
}) {
  const t = useT();
  const [input, setInput] = useState<LayerInput>({});
  const [photo, setPhoto] = useState<File | null>(null);
  const [who, setWho] = useState('');
  // Run with a required field empty: each such field says so, and nothing is run.
  const [tried, setTried] = useState(false);
  const required = REQUIRED[layer.id];
  const empty = (name: Required) =>
    name === 'photo' ? photo === null : !(input[name] ?? '').trim();
  const missing = required.filter(empty);
  const needed = (name: Required) =>
    tried && required.includes(name) && empty(name) ? t('acceptance.fields.required') : null;
  const [note, setNote] = useState('');
  const run = useMutation({
    mutationFn: async () =>
      consoleApi.runLayer(layer.id, {
        ...input,
        ...(photo && { photoBase64: await fileBase64(photo) }),
      }),
    onSuccess: onDone,
  });
  const confirm = useMutation({
    mutationFn: () => consoleApi.confirmLayer(layer.id, who, note),
    onSuccess: onDone,
  });
  const title = layerTitle(layer.id, layer.title);
  // Only automated checks that held can be completed by hand; a failure cannot be confirmed away.
  const refusal = layer.manualPrompt && !layer.manual ? confirmRefusal(layer) : null;
  const field = (name: keyof LayerInput, label: string) => (
    <TextInput
      label={label}
      value={input[name] ?? ''}
      onChange={(e) => setInput({ ...input, [name]: e.currentTarget.value })}
      required={required.includes(name as Required)}
      error={needed(name as Required)}
    />
  );
  const needs: Record<LayerId, React.ReactNode> = {
    services: null,
    web: null,
    central: null,
    data: (
      <Group>
        {field('organization', t('acceptance.fields.organization'))}
        {field('space', t('acceptance.fields.space'))}
        {field('person', t('acceptance.fields.person'))}
      </Group>
    ),
    discovery: null,
    terminals: <Text size="sm">{t('acceptance.needs.terminals')}</Text>,
    sync: (
      <Group>
        {field('space', t('acceptance.fields.testSpace'))}
        <FileInput
          label={t('acceptance.fields.photo')}
          accept="image/jpeg"
          value={photo}
          onChange={setPhoto}
          required
          error={needed('photo')}
        />
      </Group>
    ),
    recognition: <Text size="sm">{t('acceptance.needs.recognition')}</Text>,
  };
  return (
    <section aria-label={t('acceptance.layer', { title })}>
      <Stack>
        {needs[layer.id]}
        <Group>
          <Button
            onClick={() => {
              setTried(true);
              if (missing.length === 0) run.mutate();
            }}
            loading={run.isPending}
          >
            {t('acceptance.run', { title })}
          </Button>
          {/* The stepper's mark too: on a phone (no stepper) colour is never the only sign. */}
          <Badge
            color={STEP_LOOK[stepTone(layer)].fill}
            styles={{ root: { color: STEP_LOOK[stepTone(layer)].ink } }}
          >
            {STEP_LOOK[stepTone(layer)].mark && (
              <span aria-hidden="true">{`${STEP_LOOK[stepTone(layer)].mark} `}</span>
            )}
            {t(statusKey(layer))}
          </Badge>
        </Group>
        {run.error && <Alert color="red">{run.error.message}</Alert>}
        {layer.error && <Alert color="red">{layer.error}</Alert>}
        {layer.evidence.length > 0 && (
          <List aria-label={t('acceptance.evidence', { title })} size="sm">
            {layer.evidence.map((e, i) => (
              <List.Item key={i}>
                {t('acceptance.fact', {
                  mark: !e.ok ? '✘' : e.warning ? '⚠' : '✔',
                  label: redactedSaid(e.label),
                  value: redactedSaid(e.value),
                })}
              </List.Item>
            ))}
          </List>
        )}
        {layer.manualPrompt && (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              confirm.mutate();
            }}
          >
            <Text size="sm" fw={600}>
              {t('acceptance.confirm.prompt', {
                prompt: t(`layerPrompts.${layer.id}`, { defaultValue: layer.manualPrompt }),
              })}
            </Text>
            {refusal && (
              <Text size="sm" c={layer.status === 'failed' ? 'red.9' : undefined}>
                {refusal}
              </Text>
            )}
            <Group align="end" hidden={refusal !== null}>
              <TextInput
                label={t('acceptance.confirm.who')}
                value={who}
                onChange={(e) => setWho(e.currentTarget.value)}
                required
              />
              <Textarea
                label={t('acceptance.confirm.note')}
                value={note}
                onChange={(e) => setNote(e.currentTarget.value)}
                autosize
                minRows={1}
              />
              <Button type="submit" variant="default">
                {t('acceptance.confirm.record')}
              </Button>
            </Group>
            {confirm.error && (
              <Alert color="red" mt="sm">
                {confirm.error.message}
              </Alert>
            )}
            {layer.manual && (
              <Text size="sm">
                {t('acceptance.confirm.done', {
                  who: layer.manual.who,
                  at: localTime(layer.manual.at),
                })}
              </Text>
            )}
          </form>
        )}
        <Group>
          {/* c, not color (a subtle button's text ignores its shade); dark.9 keeps 4.5:1 on blue.2. */}
          <Button variant="subtle" c="dark.9" onClick={onNext}>
            {t('acceptance.next')}
          </Button>
        </Group>
      </Stack>
    </section>
  );
}
