import { LAYER_COLOR } from './colors.js';
import {
  Alert,
  Badge,
  Button,
  FileInput,
  Group,
  List,
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
import { download } from './download.js';

type Layer = AcceptanceState['layers'][number];
const color = LAYER_COLOR;

async function fileBase64(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let text = '';
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text);
}

/** The seed's eight layers as a stepper, then the handover report. */
export function AcceptancePage() {
  const qc = useQueryClient();
  const state = useQuery({ queryKey: ['acceptance'], queryFn: () => consoleApi.getAcceptance() });
  const [active, setActive] = useState(0);
  const layers = state.data?.layers ?? [];
  const update = (data: AcceptanceState) => qc.setQueryData(['acceptance'], data);
  return (
    <Stepper
      active={active}
      onStepClick={setActive}
      orientation="vertical"
      allowNextStepsSelect
      // Mantine dims step descriptions below AA contrast; the status is worth reading.
      styles={{ stepDescription: { color: 'var(--mantine-color-text)' } }}
    >
      {layers.map((layer, i) => (
        <Stepper.Step
          key={layer.id}
          label={layer.title}
          description={layer.status}
          color={color[layer.status]}
        >
          <LayerStep layer={layer} onDone={update} onNext={() => setActive(i + 1)} />
        </Stepper.Step>
      ))}
      <Stepper.Completed>
        <ReportStep state={state.data} onDone={update} />
      </Stepper.Completed>
    </Stepper>
  );
}

function LayerStep({
  layer,
  onDone,
  onNext,
}: {
  layer: Layer;
  onDone: (s: AcceptanceState) => void;
  onNext: () => void;
}) {
  const [input, setInput] = useState<LayerInput>({});
  const [photo, setPhoto] = useState<File | null>(null);
  const [who, setWho] = useState('');
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
  const field = (name: keyof LayerInput, label: string) => (
    <TextInput
      label={label}
      value={input[name] ?? ''}
      onChange={(e) => setInput({ ...input, [name]: e.currentTarget.value })}
    />
  );
  const needs: Record<LayerId, React.ReactNode> = {
    services: null,
    web: null,
    central: null,
    data: (
      <Group>
        {field('organization', 'Organization')}
        {field('space', 'Space')}
        {field('person', 'Person (name or ID number)')}
      </Group>
    ),
    discovery: null,
    terminals: (
      <Text size="sm">
        Push the central address from the Terminals tab first; its proof is the evidence here.
      </Text>
    ),
    sync: (
      <Group>
        {field('space', 'Space for the test person')}
        <FileInput
          label="Test person's photo (JPEG)"
          accept="image/jpeg"
          value={photo}
          onChange={setPhoto}
        />
      </Group>
    ),
    recognition: (
      <Text size="sm">Have a known person recognized by a device, then run this check.</Text>
    ),
  };
  return (
    <section aria-label={`${layer.title} layer`}>
      <Stack>
        {needs[layer.id]}
        <Group>
          <Button onClick={() => run.mutate()} loading={run.isPending}>
            Run {layer.title} check
          </Button>
          <Badge color={color[layer.status]}>{layer.status}</Badge>
        </Group>
        {run.error && <Alert color="red">{run.error.message}</Alert>}
        {layer.error && <Alert color="red">{layer.error}</Alert>}
        {layer.evidence.length > 0 && (
          <List aria-label={`${layer.title} evidence`} size="sm">
            {layer.evidence.map((e, i) => (
              <List.Item key={i}>
                {e.ok ? '✔' : '✘'} {e.label}: {e.value}
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
              Confirm by hand: {layer.manualPrompt}
            </Text>
            <Group align="end">
              <TextInput
                label="Confirmed by"
                value={who}
                onChange={(e) => setWho(e.currentTarget.value)}
                required
              />
              <Textarea
                label="Note"
                value={note}
                onChange={(e) => setNote(e.currentTarget.value)}
              />
              <Button type="submit" variant="default">
                Record confirmation
              </Button>
            </Group>
            {layer.manual && (
              <Text size="sm">
                Confirmed by {layer.manual.who} at {layer.manual.at}
              </Text>
            )}
          </form>
        )}
        <Group>
          <Button variant="subtle" onClick={onNext}>
            Next layer
          </Button>
        </Group>
      </Stack>
    </section>
  );
}

function ReportStep({
  state,
  onDone,
}: {
  state: AcceptanceState | undefined;
  onDone: (s: AcceptanceState) => void;
}) {
  const [technician, setTechnician] = useState('');
  const [site, setSite] = useState('');
  const finish = useMutation({
    mutationFn: () => consoleApi.finishAcceptance(technician, site),
    onSuccess: onDone,
  });
  const save = (format: 'html' | 'json' | 'pdf') =>
    void consoleApi
      .getReport(format)
      .then((f) => download(f.filename, f.mime, { base64: f.base64 }));
  const report = state?.report;
  return (
    <section aria-label="Handover report">
      <Stack>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            finish.mutate();
          }}
        >
          <Group align="end">
            <TextInput
              label="Technician"
              value={technician}
              onChange={(e) => setTechnician(e.currentTarget.value)}
              required
            />
            <TextInput
              label="Site"
              value={site}
              onChange={(e) => setSite(e.currentTarget.value)}
              required
            />
            <Button type="submit" loading={finish.isPending}>
              Finish acceptance
            </Button>
          </Group>
        </form>
        {finish.error && <Alert color="red">{finish.error.message}</Alert>}
        {report && (
          <>
            <Text>
              Report SHA-256: <code>{report.sha256}</code>
            </Text>
            {report.recordedAt ? (
              <Alert color="green">
                Digest recorded in the central audit log at {report.recordedAt}
              </Alert>
            ) : (
              <Alert color="red">Digest not recorded: {report.recordError}</Alert>
            )}
            <Group>
              <Button onClick={() => save('html')}>Download HTML</Button>
              <Button onClick={() => save('json')}>Download JSON</Button>
              <Button onClick={() => save('pdf')}>Download PDF</Button>
            </Group>
          </>
        )}
      </Stack>
    </section>
  );
}
