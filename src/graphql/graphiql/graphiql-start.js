// Starts GraphiQL with the options the page embeds as JSON (no inline script: the CSP forbids it).
// Monaco's workers are files of this origin too (the stock page fetched them from unpkg.com).
(function () {
  const page = document.getElementById('graphiql-page');
  const workers = JSON.parse(page.getAttribute('data-workers'));
  self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: (_moduleId, label) => workers[label] || workers.editorWorkerService };
  const options = JSON.parse(document.getElementById('graphiql-options').textContent);
  YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), options);
})();
