import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { Contacts } from './Contacts';
import { useLanguage, word } from '../test-helpers';

/** The shop's contacts card: the phone and email typed on My shop (first in the API's list) and its website. */
describe('the contacts card', () => {
  afterEach(cleanup);

  it.each(['en', 'ae', 'so'] as const)('links the phone, the email and the website, labelled in %s', async (lng) => {
    await useLanguage(lng);
    render(
      <Contacts
        contacts={[
          { id: -1, type: 'phone', label: null, value: '+252 61 5123456' },
          { id: -2, type: 'email', label: null, value: 'shop@hodan.example' },
        ]}
        website="https://hodan.example/"
      />,
    );
    expect(screen.getByRole('link', { name: '+252 61 5123456' }).getAttribute('href')).toBe('tel:+252615123456');
    expect(screen.getByRole('link', { name: 'shop@hodan.example' }).getAttribute('href')).toBe('mailto:shop@hodan.example');
    expect(screen.getByRole('link', { name: 'hodan.example' }).getAttribute('href')).toBe('https://hodan.example/');
    expect(screen.getByText(`${word(lng, 'contact.website')}:`, { exact: false })).toBeTruthy();
  });

  it('shows a website alone, and never a link that is not a web address', async () => {
    await useLanguage('en');
    const { container, rerender } = render(<Contacts contacts={[]} website="https://hodan.example" />);
    expect(screen.getByRole('link', { name: 'hodan.example' })).toBeTruthy();
    rerender(<Contacts contacts={[]} website="javascript:alert(1)" />);
    expect(container.textContent).toBe('');
  });
});
