// The limits an image is fitted into before it is sent, the strictest of the providers':
// - Anthropic rejects a base64 string over 5 MB ("image exceeds 5 MB maximum: ... bytes >
//   5242880 bytes", the invalid_request_error quoted in earendil-works/pi#424), an image over
//   8,000 px on a side, and over 2,000 px once a request holds more than 20 images ("At least
//   one of the image dimensions exceed max allowed size for many-image requests: 2000 pixels",
//   anomalyco/opencode#12068); it scales anything over 1,568 px down itself
//   (platform.claude.com/docs/en/build-with-claude/vision).
// - OpenAI's vision guide allows larger payloads and scales images to fit 2,048 px itself.
// Claude Code keeps images at most 2,000 px on a side and 3.75 MB raw for the same reasons
// (its constants/apiLimits.ts).

/** The longest side of an image that is sent. */
export const MAX_IMAGE_SIDE = 2_000;
/** The longest base64 string the Anthropic API takes for one image. */
export const MAX_IMAGE_BASE64_BYTES = 5 * 1024 * 1024;
/** The most encoded bytes whose base64 stays within MAX_IMAGE_BASE64_BYTES. */
export const MAX_IMAGE_BYTES = (MAX_IMAGE_BASE64_BYTES * 3) / 4;
/**
 * What an image costs in input tokens, for estimating a request's size: Anthropic counts
 * width x height / 750, about 1,600 tokens for an image it has scaled to its 1.15 megapixels.
 */
export const IMAGE_TOKENS = 1_600;
