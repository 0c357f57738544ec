import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Field } from './field.tsx';

describe('Field', () => {
  it('labels its control and describes it by the hint and the error that are shown', () => {
    render(
      <Field label="Alert email" hint="Where alerts go." error={{ type: 'custom', message: 'Enter a valid email address' }}>
        {(props) => <input {...props} />}
      </Field>,
    );
    const input = screen.getByRole('textbox', { name: 'Alert email' });
    expect(input).toHaveAttribute('aria-invalid', 'true');
    expect(input).toHaveAccessibleDescription('Enter a valid email address Where alerts go.');
  });

  it('points at nothing that is not there', () => {
    render(<Field label="Title">{(props) => <input {...props} />}</Field>);
    const input = screen.getByRole('textbox', { name: 'Title' });
    expect(input).toHaveAttribute('aria-invalid', 'false');
    expect(input).not.toHaveAttribute('aria-describedby');
  });
});
