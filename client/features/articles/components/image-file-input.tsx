import type { RefObject } from 'react';
import { ARTICLE_IMAGE_TYPES } from '../../../../contracts/article-image-urls.ts';

/**
 * The hidden file input behind an article's image buttons (the cover's, the editor's): a button
 * opens it, so it is out of the tab order; it takes the image types the server accepts, and is
 * emptied after each choice so choosing the same file again is a change.
 */
export function ImageFileInput({ inputRef, label, onFiles }: { inputRef: RefObject<HTMLInputElement | null>; label: string; onFiles: (files: FileList | null) => void }) {
  return (
    <input
      ref={inputRef}
      type="file"
      accept={ARTICLE_IMAGE_TYPES.join(',')}
      aria-label={label}
      className="sr-only"
      tabIndex={-1}
      onChange={(event) => {
        onFiles(event.target.files);
        event.target.value = '';
      }}
    />
  );
}
