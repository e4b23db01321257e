/** A bare koa handler standing in for the vocabularies service in the proxy benchmark. */
import Koa from 'koa';

const app = new Koa();
const entry = {
  id: 'image-photo',
  type: 'resourcetypes',
  title: { en: 'Photo', de: 'Foto' },
  props: { csl: 'graphic', datacite_general: 'Image', datacite_type: 'Photo', type: 'image', subtype: 'image-photo' },
  tags: ['depositable', 'linkable'],
  created: '2023-11-14T19:33:09.837080+00:00',
  updated: '2023-11-14T19:33:09.837080+00:00',
  revision_id: 1,
  links: { self: 'http://127.0.0.1:5000/api/vocabularies/resourcetypes/image-photo' },
};
app.use(async (ctx) => {
  if (ctx.path.startsWith('/api/vocabularies/resourcetypes/')) ctx.body = entry;
  else ctx.status = 404;
});
const server = app.listen(Number(process.env.PORT ?? 5199), '127.0.0.1');
server.keepAliveTimeout = 65_000;
