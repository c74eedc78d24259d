/** Mantine anchors, buttons and nav links that navigate through the typed router. */
import {
  Anchor,
  Button,
  NavLink,
  type AnchorProps,
  type ButtonProps,
  type NavLinkProps,
} from '@mantine/core';
import { createLink, type LinkComponent } from '@tanstack/react-router';
import { forwardRef, type AnchorHTMLAttributes } from 'react';

type AnchorAttributes = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'color' | 'style'>;

const MantineAnchor = forwardRef<HTMLAnchorElement, AnchorProps & AnchorAttributes>(
  (props, ref) => <Anchor ref={ref} {...props} />,
);
const RouterAnchor = createLink(MantineAnchor);
/** A text link to a route of the site. */
export const Link: LinkComponent<typeof MantineAnchor> = (props) => (
  <RouterAnchor preload="intent" {...props} />
);

const MantineButtonAnchor = forwardRef<HTMLAnchorElement, ButtonProps & AnchorAttributes>(
  (props, ref) => <Button component="a" ref={ref} {...props} />,
);
const RouterButton = createLink(MantineButtonAnchor);
/** A button that goes to a route (a link for the browser and assistive technology). */
export const ButtonLink: LinkComponent<typeof MantineButtonAnchor> = (props) => (
  <RouterButton preload="intent" {...props} />
);

const MantineNavLink = forwardRef<HTMLAnchorElement, NavLinkProps & AnchorAttributes>(
  (props, ref) => <NavLink component="a" ref={ref} {...props} />,
);
const RouterNavLink = createLink(MantineNavLink);
/** A navigation entry; active (and `aria-current="page"`) on its route and the ones below. */
export const NavLinkTo: LinkComponent<typeof MantineNavLink> = (props) => (
  <RouterNavLink preload="intent" {...props} />
);
