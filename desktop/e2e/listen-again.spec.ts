import { createSocket, type Socket } from 'node:dgram';
import { expect, test } from '@playwright/test';
import { closedPort } from '../src/testing/central-process.js';
import { consoleOn } from './support/console-process.js';
import { ProofsPage } from './support/proofs-page.js';

/** A discovery port another program holds: named in words, and opened once it is let go. */
test('listen again: the console opens the discovery port once another program lets it go', async ({
  page: other,
}) => {
  const held = await closedPort();
  const holder: Socket = createSocket({ type: 'udp4' }); // no SO_REUSEADDR: nobody may share
  await new Promise<void>((resolve) => holder.bind(held, '0.0.0.0', resolve));
  const second = await consoleOn(held);
  try {
    await other.goto(second.url);
    const alert = other.getByRole('alert').filter({ hasText: 'Not listening for terminals' });
    // In words, naming the program holding the port (this test's own process), not EADDRINUSE.
    await expect(alert).toContainText(`Another program already uses UDP port ${held}`);
    await expect(alert).toContainText(`(process ${process.pid}:`);
    await expect(alert).not.toContainText('EADDRINUSE');
    const ui = new ProofsPage(other);
    for (const width of [1280, 390]) {
      await other.setViewportSize({ width, height: 800 });
      // The holder's long command line wraps inside the banner: nothing is cut.
      expect(await ui.cutInside(alert)).toEqual([]);
      await other.screenshot({ path: test.info().outputPath(`port-held-${width}.png`) });
    }
    await other.setViewportSize({ width: 1280, height: 800 });
    // Diagnostics says the same in words: the holder named, no socket error code.
    const diagnosed = await ui.diagnose('');
    const heldFinding = diagnosed
      .getByRole('alert')
      .filter({ hasText: `UDP port ${held} is held by another program` });
    await expect(heldFinding).toContainText(`this console could not open UDP ${held}`);
    await expect(heldFinding).toContainText(`(process ${process.pid}:`);
    await expect(diagnosed).not.toContainText('EADDRINUSE');
    for (const width of [1280, 390]) {
      await other.setViewportSize({ width, height: 800 });
      expect(await ui.cutInside(heldFinding)).toEqual([]);
      expect(
        await other.evaluate<number>('document.documentElement.scrollWidth'),
      ).toBeLessThanOrEqual(width);
      await other.screenshot({
        path: test.info().outputPath(`port-held-diagnostics-${width}.png`),
        fullPage: true,
      });
    }
    await other.setViewportSize({ width: 1280, height: 800 });
    await new Promise<void>((resolve) => holder.close(() => resolve()));
    // The banner is the Terminals tab's.
    await ui.tab('Terminals').click();
    await alert.getByRole('button', { name: 'Listen again' }).click();
    await expect(alert).toHaveCount(0);
    const findings = await ui.diagnose('127.0.0.1');
    await expect(findings).toContainText(`UDP ${held}: listening`);
  } finally {
    await second.stop();
  }
});
