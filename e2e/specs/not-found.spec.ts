/**
 * An address the app has no page for says so and offers the way back, at desktop and phone
 * width, instead of showing the flow list as if nothing were wrong.
 */
import { expect, test } from '../fixtures/index.ts';
import { fitsWidth, seriousFindings } from '../fixtures/a11y.ts';

for (const size of [{ name: 'desktop', width: 1280, height: 800 }, { name: 'phone', width: 390, height: 844 }]) {
  test.describe(`an unknown address at ${size.name} width`, () => {
    test.use({ viewport: { width: size.width, height: size.height } });

    test('says there is no page there, names the address and leads back', async ({ page }) => {
      const path = '/flow/an-old-link-someone-kept-from-an-earlier-version-of-the-app-0123456789';
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Page not found');
      await expect(page.locator('.not-found__path')).toHaveText(path);
      await expect(page.getByRole('heading', { name: 'Flows' })).toHaveCount(0);
      // No menu entry claims the page.
      await expect(page.getByRole('navigation', { name: 'Main' }).locator('[aria-current="page"]')).toHaveCount(0);
      await fitsWidth(page);
      expect(await seriousFindings(page)).toEqual([]);

      await page.getByRole('link', { name: 'every run' }).click();
      await expect(page).toHaveURL(/\/runs$/);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Runs');
      await page.goBack();
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Page not found');
      await page.getByRole('link', { name: 'your flows' }).click();
      await expect(page).toHaveURL(/\/$/);
      await expect(page.getByRole('heading', { name: 'Flows', level: 1 })).toBeVisible();
    });

    test('still opens the flow list at / and /index.html', async ({ page }) => {
      for (const path of ['/', '/index.html']) {
        await page.goto(path);
        await expect(page.getByRole('heading', { name: 'Flows', level: 1 })).toBeVisible();
      }
    });
  });
}
