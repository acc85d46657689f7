/**
 * The allow-lists for the foreign content a chapter may carry: inline SVG (SVG 1.1 and 2 shapes, text, paint
 * servers, clipping, masking, markers and filter primitives; presentation and geometry attributes) and MathML
 * (MathML Core's elements and attributes, with mfenced and menclose from MathML 3 for older books).
 * Names are lower-case: htmlparser2 lower-cases them, and the last pass compares lower-cased parse5 names.
 *
 * Never here: script, foreignObject (HTML re-entering SVG), animation elements (animate/set can rewrite an href
 * into javascript:), <style> inside SVG (in foreign content it is not raw text: the parser-confusion vector),
 * MathML's annotation-xml, mglyph, malignmark, maction (replaced by its shown child before the allow-list) and
 * href on MathML elements (MathML Core has none); no on* attribute anywhere.
 */

export const SVG_NAMESPACE = 'http://www.w3.org/2000/svg';
export const MATHML_NAMESPACE = 'http://www.w3.org/1998/Math/MathML';

export const SVG_TAGS = `
svg g defs symbol use image switch a path rect circle ellipse line polyline polygon text tspan textpath
lineargradient radialgradient stop pattern clippath mask marker filter
feblend fecolormatrix fecomponenttransfer fecomposite feconvolvematrix fediffuselighting fedisplacementmap
fedistantlight fedropshadow feflood fefunca fefuncb fefuncg fefuncr fegaussianblur femerge femergenode
femorphology feoffset fepointlight fespecularlighting fespotlight fetile feturbulence
`.trim().split(/\s+/);

/** Elements whose href may only name something inside the document ("#id"). */
export const SVG_FRAGMENT_HREF_TAGS = new Set(['use', 'lineargradient', 'radialgradient', 'pattern', 'textpath', 'filter']);

/** Presentation attributes whose value may hold url(): only url(#id) is kept. */
export const SVG_PAINT_ATTRIBUTES = new Set(['fill', 'stroke', 'clip-path', 'mask', 'filter', 'marker-start', 'marker-mid', 'marker-end', 'marker']);

const SVG_COMMON = `
id class style lang dir xmlns xmlns:xlink version baseprofile xml:space systemlanguage role aria-label aria-hidden
transform transform-origin fill fill-opacity fill-rule stroke stroke-width stroke-opacity stroke-linecap
stroke-linejoin stroke-miterlimit stroke-dasharray stroke-dashoffset opacity color display visibility overflow
clip-path clip-rule mask filter marker-start marker-mid marker-end font-family font-size font-weight font-style
font-variant font-stretch text-anchor text-decoration dominant-baseline alignment-baseline baseline-shift
letter-spacing word-spacing writing-mode direction unicode-bidi stop-color stop-opacity flood-color flood-opacity
lighting-color color-interpolation color-interpolation-filters shape-rendering text-rendering image-rendering
vector-effect paint-order pointer-events
x y x1 y1 x2 y2 cx cy r rx ry fx fy fr width height d points dx dy rotate textlength lengthadjust pathlength
viewbox preserveaspectratio gradientunits gradienttransform spreadmethod offset patternunits patterncontentunits
patterntransform clippathunits maskunits maskcontentunits markerwidth markerheight markerunits refx refy orient
startoffset method spacing side filterunits primitiveunits
in in2 result stddeviation mode type values operator k1 k2 k3 k4 basefrequency numoctaves seed stitchtiles radius
scale xchannelselector ychannelselector tablevalues slope intercept amplitude exponent surfacescale
specularconstant specularexponent diffuseconstant azimuth elevation pointsatx pointsaty pointsatz
limitingconeangle kernelmatrix order divisor bias targetx targety edgemode preservealpha kernelunitlength
`.trim().split(/\s+/);

const SVG_HREF_TAGS = new Set(['a', 'image', ...SVG_FRAGMENT_HREF_TAGS]);

/** The attributes an SVG element may keep (href only where it means something). */
export function SVG_ATTRIBUTES(tag: string): string[] {
  return SVG_HREF_TAGS.has(tag) ? [...SVG_COMMON, 'href', 'xlink:href', ...(tag === 'a' ? ['target'] : [])] : SVG_COMMON;
}

export const MATHML_TAGS = `
math annotation merror mfrac mi mmultiscripts mn mo mover mpadded mphantom mprescripts mroot mrow ms mspace msqrt
mstyle msub msubsup msup mtable mtd mtext mtr munder munderover semantics none mfenced menclose
`.trim().split(/\s+/);

export const MATHML_ATTRIBUTES = `
id class style dir lang xmlns display displaystyle scriptlevel mathvariant mathsize mathcolor mathbackground alttext
linethickness lspace rspace stretchy symmetric maxsize minsize largeop movablelimits form fence separator accent
accentunder width height depth voffset columnalign rowalign columnspan rowspan columnlines rowlines frame
framespacing rowspacing columnspacing equalrows equalcolumns notation open close separators bevelled numalign
denomalign encoding lquote rquote intent arg
`.trim().split(/\s+/);
