// A club that admits players by invite: the sign-in asks for the code,
// says plainly when a code is wrong, and lets the right one in. Run against
// a `kibitz serve` with `registration = "invite"` ($KIBITZ_URL) and a code
// its admin issued ($KIBITZ_INVITE); tests/web.rs starts both.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { ARTIFACTS, BASE, launch } from "../e2e/browser.mjs";

test("an invite code lets a player in", { timeout: 60_000 }, async () => {
  const code = process.env.KIBITZ_INVITE;
  assert.ok(code, "KIBITZ_INVITE holds a code the admin issued");
  mkdirSync(ARTIFACTS, { recursive: true });
  const browser = await launch();
  const page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
  try {
    await page.goto(BASE);
    await page.getByLabel("Your name at the club").fill("Robin");
    await page.getByLabel("Invite code").fill("not-a-code");
    await page.getByRole("button", { name: "Come in" }).click();
    await page.getByText("that invite code is unknown, used or expired").waitFor();
    await page.screenshot({ path: `${ARTIFACTS}/9-invite-refused.png` });
    await page.getByLabel("Invite code").fill(code);
    await page.getByRole("button", { name: "Come in" }).click();
    await page.getByText("Welcome, Robin").waitFor();
    await page.locator(".persona").first().waitFor();
  } catch (e) {
    await page.screenshot({ path: `${ARTIFACTS}/failure-invite.png` }).catch(() => {});
    throw e;
  } finally {
    await browser.close();
  }
});
