import type { FieldValues, Path, UseFormRegister } from 'react-hook-form';

/** register() for MUI inputs: the ref must reach the <input>, through inputRef. */
export function muiRegister<T extends FieldValues>(register: UseFormRegister<T>, name: Path<T>) {
  const { ref, ...rest } = register(name);
  return { ...rest, inputRef: ref };
}
