import { Alert, Button, Code, CopyButton, Group, Stack, Text } from '@mantine/core';

/** A device key, shown once: copy it now, it cannot be shown again. */
export function KeyShownOnce({
  sn,
  deviceKey,
  onDone,
}: {
  sn: string;
  deviceKey: string;
  onDone: () => void;
}) {
  return (
    <Stack>
      <Alert color="orange" title="Copy this key now">
        This is the only time the key of {sn} is shown. Enter it in the device’s settings; if it is
        lost, rotate the key and enter the new one.
      </Alert>
      <Text size="sm" fw={600} id="device-key-label">
        Device key
      </Text>
      <Code block aria-labelledby="device-key-label" data-testid="device-key">
        {deviceKey}
      </Code>
      <Group justify="space-between">
        <CopyButton value={deviceKey}>
          {({ copied, copy }) => (
            <Button variant="default" onClick={copy}>
              {copied ? 'Copied' : 'Copy key'}
            </Button>
          )}
        </CopyButton>
        <Button onClick={onDone}>I have stored the key</Button>
      </Group>
    </Stack>
  );
}
