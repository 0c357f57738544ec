import { articleImageSources } from '../../contracts/article-images.ts';

/** An article's text column is at most 720 px wide (max-w-3xl less its padding). */
export const CONTENT_IMAGE_SIZES = '(min-width: 768px) 720px, 100vw';

type ArticleImageProps = {
  image: { id: string; width: number; height: number };
  alt: string;
  /** How wide the image shows, for the browser to pick from the srcset. */
  sizes: string;
  /** The page's main image (an article's cover, its LCP): fetched first, never lazily. */
  priority?: boolean;
  className?: string;
};

/**
 * An uploaded article image (docs/decisions/0099): every width served, with its size set so the
 * page does not move when it arrives; lazy unless it is the page's main image.
 */
export function ArticleImage({ image, alt, sizes, priority = false, className }: ArticleImageProps) {
  const { src, srcSet, width, height } = articleImageSources(image);
  return (
    <img
      src={src}
      srcSet={srcSet}
      sizes={sizes}
      width={width}
      height={height}
      alt={alt}
      className={className}
      {...(priority ? { fetchPriority: 'high', loading: 'eager' } : { loading: 'lazy', decoding: 'async' })}
    />
  );
}
