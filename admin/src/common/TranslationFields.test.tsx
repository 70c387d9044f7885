import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { AdminContext, EditBase, SimpleForm, TextInput, memoryStore, testDataProvider } from 'react-admin';
import { updateCategorySchema } from '@app/contracts';
import { TranslationFields } from './TranslationFields';
import { sharedResolver } from './zodForm';
import { testI18nProvider } from '../test/i18n';

type Translations = Record<string, Record<string, string>> | null;

async function renderCategory(
  translations: Translations,
  update = vi.fn(async (_r: string, p: { data: unknown }) => ({ data: { id: 1, ...(p.data as object) } })),
  lng = 'en',
) {
  const i18nProvider = await testI18nProvider(lng);
  const dataProvider = testDataProvider({
    getOne: async () => ({ data: { id: 1, name: 'Daily', description: 'One day', translations } }) as never,
    update: update as never,
  });
  render(
    <AdminContext dataProvider={dataProvider} i18nProvider={i18nProvider} store={memoryStore()}>
      <EditBase resource="internet-categories" id={1} mutationMode="pessimistic" redirect={false}>
        <SimpleForm resolver={sharedResolver(updateCategorySchema)}>
          <TextInput source="name" label="catalogue.fields.name" />
          <TranslationFields source="name" label="catalogue.fields.name" />
          <TextInput source="description" label="catalogue.fields.description" multiline />
          <TranslationFields source="description" label="catalogue.fields.description" multiline />
        </SimpleForm>
      </EditBase>
    </AdminContext>,
  );
  return update;
}

describe('TranslationFields', () => {
  afterEach(() => {
    cleanup();
    vi.restoreAllMocks();
  });

  it('is collapsed without translations, and opens inputs per language labelled in the user’s language, Arabic right to left', async () => {
    await renderCategory(null);
    await waitFor(() => expect((screen.getByLabelText(/^Name\s*\*?$/) as HTMLInputElement).value).toBe('Daily'));
    const toggle = screen.getByRole('button', { name: 'Translations of Name' });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    const arabic = screen.getByLabelText('Name in Arabic') as HTMLInputElement;
    expect(arabic.getAttribute('dir')).toBe('rtl');
    expect(arabic.getAttribute('lang')).toBe('ar');
    expect((screen.getByLabelText('Name in Somali') as HTMLInputElement).getAttribute('dir')).toBe('ltr');
    expect(screen.getByLabelText('Name in English')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Translations of Description' }).getAttribute('aria-expanded')).toBe('false');
  });

  it('starts open with the stored translations, and sends what is typed as translations.<lang>.<field>', async () => {
    const update = await renderCategory({ ae: { name: 'يومي' } });
    await waitFor(() => expect(screen.getByRole('button', { name: 'Translations of Name' }).getAttribute('aria-expanded')).toBe('true'));
    expect((screen.getByLabelText('Name in Arabic') as HTMLInputElement).value).toBe('يومي');
    fireEvent.change(screen.getByLabelText('Name in Somali'), { target: { value: 'Maalinle' } });
    fireEvent.click(screen.getByRole('button', { name: 'Translations of Description' }));
    fireEvent.change(screen.getByLabelText('Description in Arabic'), { target: { value: 'يوم واحد' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(update).toHaveBeenCalled());
    const sent = (update.mock.calls[0][1] as { data: { translations: Translations } }).data.translations;
    expect(sent).toMatchObject({ ae: { name: 'يومي', description: 'يوم واحد' }, so: { name: 'Maalinle' } });
  });

  it('shows the shared schema’s message on its translation input', async () => {
    await renderCategory(null);
    fireEvent.click(await screen.findByRole('button', { name: 'Translations of Name' }));
    fireEvent.change(screen.getByLabelText('Name in Somali'), { target: { value: 'x'.repeat(192) } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Name may not be greater than 191 characters')).toBeTruthy();
  });

  it('opens itself to show the API’s 422 on a translation (a collapsed field is never silently wrong)', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const update = vi.fn().mockRejectedValue(
      Object.assign(new Error('Validation failed.'), {
        status: 422,
        body: { message: 'Validation failed.', errors: { 'translations.so.description': 'This value is too long' } },
      }),
    );
    await renderCategory(null, update);
    await waitFor(() => expect((screen.getByLabelText(/^Name\s*\*?$/) as HTMLInputElement).value).toBe('Daily'));
    const toggle = screen.getByRole('button', { name: 'Translations of Description' });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    fireEvent.change(screen.getByLabelText(/^Name\s*\*?$/), { target: { value: 'Daily bundles' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('This value is too long')).toBeTruthy();
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
  });

  it('labels in Arabic for an Arabic console', async () => {
    await renderCategory(null, undefined, 'ae');
    const buttons = await screen.findAllByRole('button', { name: /^ترجمات/ });
    expect(buttons.length).toBe(2);
    fireEvent.click(buttons[0]);
    expect(screen.getAllByLabelText(/بالعربية$/).length).toBeGreaterThan(0);
  });
});
