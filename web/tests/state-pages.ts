import type { Locator, Page } from '@playwright/test';

/** The notice a form shows when someone else saved the record first (issue 30, item 6). */
export class EditConflictNotice {
  readonly notice: Locator;

  constructor(readonly page: Page) {
    this.notice = page.getByRole('alert').filter({ hasText: /Someone else changed this/ });
  }

  /** The line naming one field someone else changed. */
  change(label: string): Locator {
    return this.notice.getByRole('listitem').filter({ hasText: `${label}:` });
  }
}
