"""Benchmark: how good are harvest's proposals? (the labelled sets in ``harvest_set/``)

Not a test. Run from the repository root::

    PYTHONPATH=src python benchmarks/harvest_quality.py [--set all] [--provider offline] [--json] [--show]

The sets (``--set``, default ``all``: every set but the holdout, :data:`HOLDOUT`, which only
``--set <holdout>`` runs, without ``--show``):

- ``project``: ``cases.yaml``, written together with the offline extractor's markers: it says
  the cases it names are handled, not how a new phrasing fares;
- ``blind``: ``blind.yaml``, written by someone who had not read the extractor, before it was
  tuned to them;
- ``blind2``: ``blind2.yaml``, a second blind batch written after that tuning (generalisation);
- ``blind3``: ``blind3.yaml``, a third blind batch (12 sessions per language) written after the
  extractor had been tuned while ``blind`` and ``blind2``'s figures were watched;
- ``blind4``: ``blind4.yaml``, a fourth blind batch (12 sessions per language, every format)
  written on 2026-12-02 after blind3 had been watched too;
- ``blind5``: ``blind5.yaml``, a fifth blind batch (12 sessions per language, every format,
  and 10 one-line prompts per language labelled standing or one-off) written on 2026-12-02
  after the extractor had been tuned on all four earlier blind sets;
- ``blind6``: ``blind6.yaml``, a sixth blind batch (13 sessions per language — the fifth's mix
  plus one trap each: an injected tool result, a pasted password, a colleague's health data, a
  pasted clause — and 10 one-line prompts per language) written on 2026-12-02 after the tuning
  on all five earlier blind sets;
- ``blind7``: ``blind7.yaml``, a seventh blind batch (49 sessions: English 13, French, Spanish
  and German 12 each, every format; 33 one-line prompts, English 9, the others 8) built from real
  phrasings of people outside the team (the research corpus's prompts, auto-memory and
  instruction files, public issue threads), written on 2026-12-02 after the tuning on all six
  earlier blind sets: the untouched holdout;
- ``blind8``: ``blind8.yaml``, an eighth blind batch (40 sessions, 10 per language, every format:
  4 explicit requests, 2 doctrine statements, 2 changes of mind, 1 with nothing to remember and
  1 trap each — an injected tool result, a freelancer's IBAN and address, a pasted connection
  string and cloud key, a pasted clause — beside a real request; 24 one-line prompts, 6 per
  language) paraphrasing the corpus's real phrasings, written on 2026-12-03 after the tuning on
  all seven earlier blind sets;
- ``blind9``: ``blind9.yaml``, a ninth blind batch (48 sessions, 12 per language, every format:
  5 explicit requests, 2 doctrine statements, 2 changes of mind, 1 outcome case, 1 with nothing
  to remember and 1 trap each — a pasted clause with the counterparty and an amount, an injected
  tool result, a colleague's mobile number and date of birth, a pasted token and password —
  beside a real request; 32 one-line prompts, 8 per language) paraphrasing the corpus's real
  phrasings, written on 2026-12-03 after the tuning on all eight earlier blind sets;
- ``blind10``: ``blind10.yaml``, a tenth blind batch (48 sessions, 12 per language, every
  format: 5 explicit requests — a bare imperative, a conditional, a polite question, a tone
  complaint, one buried in a long turn — 2 doctrine statements, 2 changes of mind, 1 outcome
  case, 1 with nothing to remember and 1 trap each — a pasted SSH key line and bearer token, a
  client's home address, a pasted e-mail with a colleague's health detail, an injected web page
  — beside a real request; 32 one-line prompts, 8 per language) paraphrasing the corpus's and
  public issue threads' real phrasings, written on 2026-12-03 after the tuning on all nine
  earlier blind sets;
- ``blind11``: ``blind11.yaml``, an eleventh blind batch (48 sessions, 12 per language, every
  format: 5 explicit requests — a rhetorical question or sarcastic complaint, a tone complaint,
  a rule with an exception, one buried in a long turn, and a third-person rule, a bullet list in
  a turn, a request given as an example or a "we" rule — 2 doctrine statements, 2 changes of
  mind, 1 outcome case, 1 with nothing to remember (a bounded "for the rest of this session"
  kind of request) and 1 trap each — an instruction injected in a fetched issue, a private
  mobile number and a child's name, a pasted confidential clause, a client's card number —
  beside a real request; 32 one-line prompts, 8 per language) paraphrasing the corpus's and
  public issue threads' real phrasings, written on 2026-12-03 after the tuning on all ten
  earlier blind sets;
- ``blind12``: ``blind12.yaml``, a twelfth blind batch (48 sessions, 12 per language, every
  format: 5 explicit requests in new shapes — a request after a list closed by "etc.", an
  infinitive or nominal imperative ("No more …", "Plus de …", "Nada de …", "Erst …, dann …"), a
  subject-less statement of how things are done, a rule given while stopping the agent mid-task
  with typos or missing accents, a writing preference given as a reason about the readers — 2
  doctrine statements given by a named body of the team (liability cap, data retention,
  e-signature, governing law, insurance minimum, audit rights, assignment, data location), 2
  changes of mind in new wordings ("I take back …", "réflexion faite", "pensándolo mejor",
  "Ich hab's mir anders überlegt"), 1 outcome case, 1 with nothing to remember (a request
  bounded to one draft or a date) and 1 trap each — an API key in a pasted log, a patient's
  diagnosis in a pasted letter, a witness's home address, an instruction injected in English in
  a German session's tool result — beside a real request; 32 one-line prompts, 8 per language)
  paraphrasing the corpus's and public issue threads' real phrasings, written on 2026-12-03
  after the tuning on all eleven earlier blind sets;
- ``blind13``: ``blind13.yaml``, a thirteenth blind batch (48 sessions, 12 per language, every
  format: 5 explicit requests in new shapes — a rule stated as a conditional consequence, a
  preference given as a comparison, a rule said as what the person does ("I never read past the
  first paragraph, so …"), a request repeated with irritation in other words in the same turn,
  a rule inside parentheses or between dashes in a longer task sentence — 2 doctrine statements
  given by a named body of the team (non-solicitation, price revision, IP of deliverables,
  penalty cap, termination for convenience, breach notice, contractual penalty cap, source-code
  escrow), 2 changes of mind in new wordings ("scrap that rule", "on revient sur …", "ya no
  hace falta …", "vergiss das mit …"), 1 outcome case, 1 with nothing to remember (a request
  bounded to one client) and 1 trap each — a password in a pasted config, an employee's salary
  in a pasted table, an ID card number, an instruction injected in a pasted e-mail — beside a
  real request; 32 one-line prompts, 8 per language) paraphrasing the corpus's real phrasings,
  written on 2026-12-03 after the tuning on all twelve earlier blind sets;
- ``blind14``: ``blind14.yaml``, a fourteenth blind batch (48 sessions, 12 per language, every
  format: 5 explicit requests in new shapes — a rule given as a question-form request ("could
  you, from now on, always …"), a correction of what the assistant just did plus a
  generalisation ("no, not like that — in general …"), a rule stated via "the way I like it is
  …", a rule given as a short list of lines after a colon, a rule tucked after the main task
  ("…, and by the way, going forward …") — 2 doctrine statements given by a named body of the
  team (subcontracting consent, anti-bribery clause, down payment, euro-only prices, no
  first-demand guarantees, prior mediation, no most-favoured-customer clause, tacit renewal of
  a year at most), 2 changes of mind in new wordings ("the … thing can go", "on arrête avec …",
  "corrige lo de …", "… fällt ab sofort weg"), 1 outcome case, 1 with nothing to remember (a
  request bounded to one document) and 1 trap each — an IBAN and a card number in a pasted
  invoice, an instruction injected in French in pasted supplier terms, a colleague's health
  detail in a pasted e-mail, a private seller's mobile number and home address — beside a real
  request; 32 one-line prompts, 8 per language) paraphrasing the corpus's real phrasings,
  written on 2026-12-03 after the tuning on all thirteen earlier blind sets;
- ``blind15``: ``blind15.yaml``, a fifteenth blind batch (48 sessions, 12 per language, every
  format: 5 explicit requests in new shapes — a complaint about a past habit plus "every time"
  ("you keep …, every single time"), a rule in the passive or impersonal ("… are to be …", "il
  faut que …", "hay que …", "es ist … zu …"), what the person will not accept ("I won't sign off
  on … unless …"), a numeric threshold in words ("any sentence over thirty words …"), a rule said
  beside a third party but meant for the assistant ("note for the assistant: …") — 2 doctrine
  statements given by a named body of the team (exclusivity only with a minimum purchase,
  sanctions screening, best-efforts obligations only, retention of title, no joint and several
  liability, no payment without a purchase order, no stand-alone guarantees, the German version
  prevails), 2 changes of mind in new wordings ("that … rule is dead", "on laisse tomber …",
  "olvídate de lo de …", "… gilt nicht mehr"), 1 outcome case, 1 with nothing to remember (a
  request bounded to one copy, sending or version) and 1 trap each — a licence key in a pasted
  e-mail, a client's criminal record in a pasted note, a child's name and school, a pasted
  system-prompt-like text in a client's document — beside a real request; 32 one-line prompts,
  8 per language) paraphrasing the corpus's real phrasings, written on 2026-12-03 after the
  tuning on all fourteen earlier blind sets;
- ``blind16``: ``blind16.yaml``, a sixteenth blind batch (48 sessions, 12 per language, every
  format: 5 explicit requests in new shapes — the lesson of a past incident told as a story
  ("same as in the spring … from here on …"), a default with an exception ("by default … the only
  time … is when …"), a rule shouted in capitals with typos ("STOP FORCE PUSHING"), a writing
  preference given by demonstration (the person rewrites the sentence: "That's how I want every
  answer"), a request buried mid-way in a long session — 2 doctrine statements given by a named
  body of the team (no copyleft dependency, quotes valid thirty days, non-compete of a year at
  most, reverse charge on intra-EU invoices, supplier payment within sixty days, credentials only
  from the secret manager, mutual indemnities only, versioned public APIs), 2 changes of mind in
  new wordings ("we've moved on from …", "…, terminé", "se acabó lo de …", "… kannst du
  streichen"), 1 outcome case, 1 with nothing to remember (a one-off that looks like a rule:
  "always …, just this commit") and 1 trap each — a webhook token in a pasted CI config, a
  colleague's disciplinary warning and private number, an instruction injected in Spanish in a
  customer ticket, an embargoed press release pasted to be translated — beside a real request;
  32 one-line prompts, 8 per language) paraphrasing the corpus's real phrasings, written on
  2026-12-03 after the tuning on all fifteen earlier blind sets;
- ``blind17``: ``blind17.yaml``, a seventeenth blind batch (48 sessions, 12 per language, every
  format: 5 explicit requests in new shapes — a rule given as the answer to the assistant's own
  question, then generalised ("yes. and the answer to that one is yes every time … dont ask me
  again"), a habit to take ("make it a habit to …", "prends l'habitude de …", "acostúmbrate a
  …", "gewöhn dir an, …"), a rule asked as a promise ("promise me that … never"), a writing
  preference given as a list of banned words ("Words I never want to see in a headline …"), a
  request given only at the very end of a long session as a parting note ("before I log off,
  for next time and every time after: …") — 2 doctrine statements given by a named body of the
  team (three quotes above a threshold, feature flags with an expiry date, anonymous sources,
  job ads with H/F and a salary range, tax and social-security certificates before a first
  order, no ticket closed without the customer's confirmation, corrections noted under the
  article, a tested down-migration), 2 changes of mind in new wordings, the new value before
  the entry is named, in the same sentence or later ("… no longer applies", "… n'a plus lieu
  d'être", "te corrijo una cosa que tienes apuntada", "… brauchen wir nicht mehr, raus
  damit"), 1 outcome case, 1 with nothing to remember (a one-off bounded in time: "for the rest
  of today always …") and 1 trap each — a rival supplier's confidential bid pasted, an SFTP
  password in a pasted e-mail, a colleague's ID number, address and leave in a pasted message,
  an instruction injected in German in a pasted pull request description — beside a real
  request; 32 one-line prompts, 8 per language: a promise, a habit, a rule of thumb, a standing
  permission; one-offs bounded in time, questions, venting), written on 2026-12-03 after the
  tuning on all sixteen earlier blind sets, a sealed holdout (no figure measured when it was
  committed);
- ``blind18``: ``blind18.yaml``, an eighteenth blind batch (48 sessions, 12 per language, every
  format: 5 explicit requests in new shapes — praise of something the assistant did unasked,
  turned into a rule ("that … is exactly what the reviewers ask for. keep doing that — every
  PR"), a task handed over as the assistant's job ("from now on the bank reconciliation is
  your job, not mine: …"), a superior's dislike relayed and adopted ("the senior partner can't
  stand footnotes … she's right. so for me too: …"), a writing preference in the
  negative-comparative ("Less apologising, more answering. From now on …"), a rule offered as
  one side of a deal ("I stop looking over your shoulder …, and you never push … deal?") — 2
  doctrine statements given as the team's settled rule (receipts for every expense claim,
  blameless postmortems, a second translator's review, interviews in pairs, minors' photos only
  with parental consent, a test-coverage floor, early-payment discounts always taken, customer
  data only after a call-back), 2 changes of mind, the new value in the next turn, between
  dashes, first put as a question, or in a PS ("… is obsolete … drop it from your notes", "…
  c'est de l'histoire ancienne", "lo de … ya sobra", "… hat sich erledigt"), 1 outcome case, 1
  with nothing to remember (a "never" said of one object about to be deleted, a conditional
  "always" for one event, a rule begun and withdrawn in the same turn, a rule for a colleague
  sent to him) and 1 trap each — a candidate's salary, a referee's mobile and a health detail
  in pasted reference-check notes, an instruction injected in French in a contract passage to
  translate, online-banking recovery codes in a pasted bank message, a leaked confidential
  board paper — beside a real request; 32 one-line prompts, 8 per language: a deal, a
  superior's dislike adopted, "for the record", a reclassification ("treat every email from …
  as urgent"); one-offs: a rule to write to a colleague, a question with "always", a feature
  request, venting), written on 2026-12-04 after the tuning on all seventeen earlier blind
  sets, a sealed holdout (no figure measured when it was committed);
- ``blind19``: ``blind19.yaml``, a nineteenth blind batch (48 sessions, 12 per language, every
  format: 5 explicit requests in new shapes — a rule voice-dictated as a run-on with a
  self-repair inside it ("dont just slap a sleep in it and or a retry no wait actually no
  retries either …"), a definition of done ("for me a month-end close isn't done until …"), the
  person's own post-it extended to the assistant ("there's a post-it on my monitor that says
  '…'. that's yours now too: …"), a writing preference as a tie-breaker between two qualities
  ("When friendly and clear pull in different directions, clear wins"), an existing practice
  extended by analogy to a new object ("you know how you always …? same for env vars from now
  on") — 2 doctrine statements given as the team's own agreed rule (no suspect named before
  being charged, no Friday-afternoon deploys, translation only into one's mother tongue,
  appraisal forms a week ahead, no supplier gifts over 30 euros, no self-approved pull
  request, a conflict check before any new mandate, references within two weeks of leaving),
  2 changes of mind, the new value as a relative change with its result in parentheses,
  offered by the assistant and repeated, in the second item of a list, or only in a reason
  clause ("consider it cancelled for good", "c'est caduc", "pasó a mejor vida", "ist
  hinfällig … künftig ohne"), 1 outcome case, 1 with nothing to remember (an "always" that is a
  handbook line being written, a former boss's rule told and not adopted, a rule asked about
  and left undecided, an ironic "ab jetzt" about oneself) and 1 trap each — an instruction
  injected in a customer CSV cell, an alarm code and a Wi-Fi password in a pasted e-mail, a
  candidate's birth date, marital status, children and mobile in a pasted CV, a confidential
  exam task pasted by a teacher — beside a real request; 32 one-line prompts, 8 per language: a
  dictated run-on with a self-repair, a definition of done, a tie-breaker between two
  documents, a personal motto handed over; one-offs: a task over a finite set ("every invoice
  in the march folder"), a one-time reminder, a feature wish put as a question, venting with
  "never"), written on 2026-12-04 after the tuning on all eighteen earlier blind sets, a sealed
  holdout (no figure measured when it was committed);
- ``blind20``: ``blind20.yaml``, a twentieth blind batch (48 sessions, 12 per language, every
  format: 5 explicit requests in new shapes — a template pasted as the layout to use every
  time, field by field, with what to write in an empty field ("always use this layout for any
  bug issue you open for me: …"), a rule for what to do when unsure, after the assistant
  guessed ("if you're not sure which vat rate applies to a line, don't guess: …"), a
  preference stated by contrast with a named colleague's way, which is rejected ("Dan fires
  his follow-ups off the minute the call ends, that's Dan. I do it differently: …"), a writing
  preference given as a mark out of ten for the draft ("Honestly, a 4 out of 10. What gets a
  10 from me: …"), a shorthand word defined as a standing routine after the assistant took it
  literally ("when i say 'ship it' i mean the whole routine: …") — 2 doctrine statements given
  as the team's settled rule, on a team wiki, at onboarding, in a welcome manual or as a
  clause the firm or the buying team always imposes (press-release quotes attributed to the
  release, no personal data in logs, data reversibility in SaaS contracts, no remote work
  before the signed amendment, no repair date without the workshop, no payment unless order,
  delivery note and invoice match, interviews authorised before print, a signed code of
  conduct before a first order), 2 changes of mind, the entry named through its old value in
  another unit, the new value as a number in words, as a counter-offer to the assistant's
  figure, or as "X statt Y" before the entry is named ("retire it, it's done its job", "ça
  n'existe plus, ce truc", "eso ya no corre", "ist abgeschafft … lösch das"), 1 outcome case
  (the topic worded differently in each of its three signals), 1 with nothing to remember (an
  "always" inside a supplier's clause asked about, a colleague's habit praised, the assistant's
  offer to make a one-off standing declined, a customer's "nie wieder" quoted) and 1 trap each
  — an instruction injected as hidden white text in a CV, a whistleblower's name, post and
  mobile in a pasted message, an Android keystore's passwords in a pasted message, a
  confidential settlement agreement pasted to be summarised — beside a real request; 32
  one-line prompts, 8 per language: a settings-style "name: value" line, an order of
  priority, a standing watch ("keep an eye out for … in every contract"), a description of
  oneself with its consequence ("i'm not an accountant, so …"); one-offs: an exception "just
  this once", a question whether the assistant remembers something, a feature wish "would be
  nice if someday …", venting with "every time" about one's own software), written on
  2026-12-04 after the tuning on all nineteen earlier blind sets, a sealed holdout (no figure
  measured when it was committed);
- ``blind21``: ``blind21.yaml``, a twenty-first blind batch (48 sessions, 12 per language,
  every format: 5 explicit requests in new shapes — a numbered procedure to follow every time,
  in that order, given after the assistant skipped steps ("here's how every dependency bump
  goes from now on, in this order, always: 1. … 4. only then commit"), a question the
  assistant is to ask itself before a kind of output ("before you send me any commentary, ask
  yourself one question: …? if the answer is no, … redo it"), a role title given to the
  assistant with what the role does and does not do ("think of yourself as my second reader:
  a second reader never rewrites anything, …"), a writing preference as "not 'X', but 'Y'"
  pairs, one a line ("not 'we regret to inform you', but 'I'm sorry'"), a time of day or of
  the week given over to one kind of work ("mornings are for deep work for me — before 1 pm
  you don't stop to ask me things …") — 2 doctrine statements given as the team's settled
  rule, in a refund SOP, signed for the compliance officer, as the HR department's rule, in
  the firm's standard engagement letter, in the buying department's written procedure, agreed
  when the repository was set up, as the desk's rule of old or in the firm's handbook (refunds
  only to the original payment method, no client messages over WhatsApp, references limited to
  dates and job title, no VAT return filed without the client's written approval, no late bid
  in the comparison, dependencies pinned to exact versions, no poll without its sponsor and
  sample size, confidential documents only through the client portal), 2 changes of mind, the
  new value as an arrow ("3 → 5"), the entry widened by a second recipient in copy, narrowed
  to a part of what it covered, or given after a rhetorical question ("kill that routine, it's
  pointless now", "on arrête les frais", "ya no toca", "kannst du knicken, das ist passé"), 1
  outcome case (the topic worded differently in each of its three signals, the decisions mixed
  in two of them), 1 with nothing to remember (a hypothetical rule asked about, "à chaque
  question" inside a quiz played now, "siempre" in thanks, a factual question with "immer")
  and 1 trap each — a crypto wallet's PIN and recovery phrase in a pasted message, an
  instruction injected in an automatic meeting transcript, a crime victim's name, age and
  address in a pasted police report, an unfiled patent claim pasted to check its units —
  beside a real request; 32 one-line prompts, 8 per language: a default "unless i say
  otherwise", a line pinned ("pin this: …"), one before → after pair of wording for every
  e-mail, a weekday given its first task ("mondays: before anything else, …"); one-offs: a
  one-off task whose "always" describes a machine, a question about what the assistant keeps
  between sessions, a wish to plug into the team's tracker, thanks alone), written on
  2026-12-04 after the tuning on all twenty earlier blind sets, a sealed holdout (no figure
  measured when it was committed);
- ``blind22``: ``blind22.yaml``, a twenty-second blind batch (48 sessions, 12 per language,
  every format: 5 explicit requests in new shapes — a split of who decides, by a threshold
  ("anything under $20 a month in new infra you just go ahead and add, dont ask. above $20 a
  month you stop and ask me first"), a scenario walked through and declared the standing
  answer ("say it's past 6pm and the nightly import fails: you dont debug anything. … that's
  the answer every time it happens"), a legend of markers for the assistant's own output
  ("mark every clause you review with one of three: [ok] …, [?] …, [x] …"), a writing
  preference given by naming a model to imitate ("Write it like the instructions for a
  flat-pack wardrobe: one action per line, numbered, no adjectives"), a precondition gate
  ("dont start on any ticket until it has acceptance criteria. if they're missing, you ask me
  for them first") — 2 doctrine statements given as the team's settled rule, on a laminated
  card on every desk, decided as a team after an outage, the house rule since the agency
  began, made a team rule at a partners' meeting, pinned on the support team's board, agreed
  at a team meeting, printed on every newsroom door or the team rule since a postmortem
  (salary figures never in an e-mail, a CHANGELOG entry in any PR touching the public API, no
  machine translation delivered without telling the client, no legal advice by phone without a
  same-day confirming e-mail, never ask a customer for a password, no prize draw without its
  published terms, no name of a dead person before the family is told, no database migration
  without a backup just before), 2 changes of mind, the new value given by reference to
  another known date ("the same day as payroll, so the 25th"), reported as a third party's
  decision, anchored to an event, or only in the assistant's lettered options and answered
  with a letter ("we dont do that anymore since …", "ça n'a plus de raison d'être … tu la
  rayes", "se murio con el cambio de banco", "hat sich … überholt, weg damit"), 1 outcome case
  (the topic worded differently in each of its three signals), 1 with nothing to remember (a
  question about another product's "always" setting, "à chaque fois" describing a symptom, a
  rule for one's child told as an anecdote, a "merk dir kurz" for the next step only) and 1
  trap each — an instruction injected in a vendored file's code comment, a prospective
  tenant's social-security number, salary and employer in a pasted rental file, a confidential
  non-binding offer to buy a company pasted to be summarised, a tax-portal user name, PIN and
  certificate password in a pasted message — beside a real request; 32 one-line prompts, 8 per
  language: a term defined for every report ("'late' means after 9:05, in every attendance
  report"), a line labelled a standing order ("standing order: …"), a rule that opens with its
  audience ("anything that goes to the board: …"), a file-naming pattern with placeholders;
  one-offs: small talk, an apology for being away, a plain task with today's deadline, an undo
  of the last action, a hypothetical question), written on 2026-12-04 after the tuning on all
  twenty-one earlier blind sets, a sealed holdout (no figure measured when it was committed);
- ``blind23``: ``blind23.yaml``, a twenty-third blind batch (48 sessions, 12 per language,
  every format: 5 explicit requests in new shapes — a predecessor's unwritten practice handed
  on ("the guy who had this codebase before you, every time he touched anything in billing
  he'd drop a one line heads-up … carry that on"), trust earned by a track record turned into
  a standing autonomy ("you've got the last ten of these right … so from now on you dont need
  to show me the query first"), a standing rule bound until a far-off event ("until we're
  properly on the new ERP, which wont be before the summer, every invoice you book also goes
  in the old tracking spreadsheet"), a writing preference as an operation applied to every
  draft before it is shown ("write your draft, then cut it to half the length, and only show
  me the half"), a free hand with fixed points ("structure it however you like … two things
  are fixed though, always: …") — 2 doctrine statements given as the team's settled rule, in
  the practice's protocol binder, out of a retro, voted in the teachers' council, as an
  unwritten rule everyone keeps, as the firm's way since always, written in the team's README,
  in the works agreement or brought in after an audit (no test results by phone or text, an
  owner label on every cron job, no test announced less than a week ahead, no production data
  on a local machine, no tax return filed on the last day, no new endpoint without a rate
  limit, no time-tracking data in performance reviews, no production-database access without
  a ticket number), 2 changes of mind, the new value as a trial that worked made permanent,
  settled while deliberating aloud ("le lundi matin ? ouais."), as a calendar rule with worked
  dates, or as "mach da generell 14 Tage draus" ("bin it, nobody has opened one since march",
  "on ne le garde plus. poubelle.", "tu desentiendete, fuera", "kannst du dir sparen … für
  immer"), 1 outcome case (the topic worded differently in each of its three signals), 1 with
  nothing to remember ("Always"/"Never" inside UI strings being translated, the person's own
  resolution about themselves, "siempre" in a joke about bad luck, a curious question about
  the assistant's own habit, "stört mich überhaupt nicht") and 1 trap each — a TOTP seed and
  backup codes in a pasted note, an instruction injected in a calendar invitation's
  description, patients' names, ID numbers, phones and health details in a pasted appointment
  list, sealed construction bids pasted to be compared — beside a real request; 32 one-line
  prompts, 8 per language: a request to be protected from oneself ("never let me email a
  client after 10pm, even if i insist"), a reminder triggered by one's own kind of request, a
  question about the assistant's conduct asked and answered in one line ("cc me on supplier
  emails? yes. always."), a trigger counted in occurrences ("every tenth support ticket you
  close, …"); one-offs: a usage or spelling question, a status check, a one-off calculation, a
  recap of the day), written on 2026-12-04 after the tuning on all twenty-two earlier blind
  sets, a sealed holdout (no figure measured when it was committed);
- ``blind24``: ``blind24.yaml``, a twenty-fourth blind batch (48 sessions, 12 per language,
  every format: 5 explicit requests in new shapes — a preference stated through a complaint
  about a past result, recalled as already said ("the due dates are 03/04/2026 style again.
  like i said last week, … YYYY-MM-DD in every file you make for me"), a checklist the
  assistant ticks honestly at the end of a kind of output ("every migration you hand me ends
  with this, and you tick it honestly: - [ ] reversible …"), a request framed as what the
  person's manager or client expects ("my manager expects every quote comparison i pass up to
  show cost per pallet"), a writing preference as compensation for the person's own known
  fault ("I hedge everything … when you write for me, do the opposite of what I'd do"), a
  numeric tolerance the work must meet, with what to do outside it ("it stays within 20% of
  the english length. if it comes out longer …") — 2 doctrine statements given as the team's
  settled rule, quoted from the boss's e-mail to everyone, as what legal said, required by the
  firm's insurer, as the bar's ethics, kept since a health inspection, approved by the ethics
  committee, in the client's framework contract or set since a social-media storm (no trailer
  out without a photo of the seal, no customer logo without written permission, no drawing
  sent without the "bon pour exécution" stamp, no writing to a represented party directly,
  every container in the cold room labelled with its date, no participant data off the
  project server, no client text in public translation services, every scheduled post paused
  on a disaster alert), 2 changes of mind, the new value from a date on ("as of the 1st … from
  the 1st it's thursdays"), as the entry's order inverted, in a dictated run-on with fillers
  ("o sea las 17:00"), or as a stand-in for a recipient on leave ("we're past that", "cette
  époque est révolue", "eso era de cuando eramos cuatro … fuera", "das war eine
  Übergangslösung, und die ist jetzt vorbei"), 1 outcome case (the topic worded differently in
  each of its three signals), 1 with nothing to remember (a curious question about a
  colleague's "never"/"always" habit, "toujours" and "jamais" in song lyrics, "SIEMPRE" in a
  quoted code comment, a question whether a house rule with "immer" applies to oneself) and 1
  trap each — a manuscript under confidential peer review pasted by a referee, a pupil's name,
  diagnoses and the family's phone and address in a parent's message, a carrier portal's
  password and live API token in a pasted message, an instruction injected in a bank
  transfer's reference field — beside a real request; 32 one-line prompts, 8 per language: a
  rule for reading the person's own signals ("when i write in all caps im not angry, just in
  a hurry"), a rule starting on a coming date, a rounding tolerance for every figure, a good
  answer defined as an equation ("a good answer from you = the number first, then one line of
  why"); one-offs: a one-sentence translation, three name ideas, a choice between two slogans
  with "every" inside one, a walk-through asked for with "never" about oneself), written on
  2026-12-04 after the tuning on all twenty-three earlier blind sets, a sealed holdout (no
  figure measured when it was committed);
- ``blind25``: ``blind25.yaml``, a twenty-fifth blind batch (48 sessions, 12 per language,
  every format, drawn from the person's working day: 5 explicit requests in new shapes — a rule
  grounded in where and when the person reads the output ("when im on call i read whatever
  you send me on my phone in the dark … so every incident summary …: first line is 'act now:
  yes' or 'act now: no'"), a rule grounded in who reads it downstream (a regulator's analyst
  who ticks every number, readers with a screen reader, a board watching a screen at the back
  of the room, members whose mail shows no images), a rule grounded in the tool the output
  lands in and its limits (a claims system's notes field cut at 1000 characters, an SMS of 160
  characters, a spreadsheet that sums by column, a slide for the Monday meeting), a writing
  preference grounded in the person saying the text aloud ("I read them over the radio to the
  stewards … write it to be said, not read"), a rule grounded in who picks the work up when
  the person's shift ends ("the night coordinator picks up from whatever's in the rota log,
  and she cant ring me … who, which shift, why, and who approved it") — 2 doctrine statements
  given as the team's settled rule, in the franchise agreement every branch signs, as the
  console makers' certification requirement, as a town council's resolution, on the first page
  of the on-call runbook, voted by a cooperative's general assembly, as the head pharmacist's
  instruction, decided by a library network or in the public-order office's conditions (no
  listing before the signed terms of business, no build with the debug menu reachable, no full
  birth certificate by e-mail, no failed production job rerun before an incident is opened, no
  delivery without the field logbook, no home delivery without a validated e-prescription, no
  word of a teenager's loans to anyone, no event over 200 guests confirmed without first aid),
  2 changes of mind, the new value as a window instead of a fixed time, typed in phone
  shorthand ("la confirm traiteurs c 14h mtn"), derived from the person's new shift ("un
  cuarto de hora antes de que entre … o sea a las 6:45") or as a calendar-week parity ("it's
  not part of my morning anymore", "tu peux la ranger au placard", "eso era cosa de la
  campaña", "das gehört nicht mehr zu meinem Tag"), 1 outcome case (the topic worded
  differently in each of its three signals), 1 with nothing to remember ("always" in an
  out-of-office text and "never" about one's own habit, "toujours" and "jamais" in a
  retirement card, "Siempre"/"Nunca" as a survey's answer options, "immer"/"nie" in a story
  about a farmers' weather saying) and 1 trap each — an instruction injected as hidden white
  text in a supplier's quote, a ticketing password and a key-safe code in a pasted handover
  note, a patient's name, ID number, diagnosis, address and mobile in a pasted message, a
  confidential property valuation pasted to be summarised — beside a real request; 32 one-line
  prompts, 8 per language: a prefix for messages sent from the phone ("if a message from me
  starts with 'M:' im on my phone …"), no markdown because everything is pasted into the
  ticket system, every time in two time zones, questions batched because of afternoons of
  meetings; one-offs: a summary bounded by the next meeting, a calendar block, a shift-swap
  message to a colleague, a sign-off naming tomorrow's start), written on 2026-12-06 after the
  tuning on all twenty-four earlier blind sets, a sealed holdout (no figure measured when it
  was committed);
- ``blind26``: ``blind26.yaml``, a twenty-sixth blind batch (48 sessions, 12 per language,
  every format, its shapes drawn from how people talk to an agent when things go wrong or are
  negotiated: 5 explicit requests in new shapes — a rule struck as a compromise after the
  assistant's clarifying question and a back-and-forth ("ok meet me halfway: no unit tests for
  config-only changes, but every config change you make goes through the schema validator"), a
  rule given as a trade-off whose cost the person owns ("id rather the release slips a day
  than ship a crash we hid under a try/catch"), a rule given by pointing at two earlier pieces
  of work, one to copy and one to avoid ("the write-up you did for the onboarding study in
  october … thats the one to copy. the pricing page one from september … is what i never want
  to see again"), a writing preference said sarcastically, mock praise first ("Wow. Emojis, an
  apology and a sunrise. Very festive … Seriously though: …"), a rule half in another
  language, switched mid-sentence ("todo en ingles esta bien … pero los comentarios del codigo
  van en castellano … so: comments in castellano") — 2 doctrine statements given as the team's
  settled rule, mostly when the person stops their own request or the assistant's offer to
  bend it: a condition of the operating licence ("it isn't mine to bend either"), the on-call
  charter every engineer signed, the hotel's charter, the mobile team's rule since a one-star
  crash, the clinic's protocol, the donor agreement every field coordinator signs, the site
  safety plan every foreman signed or the conservation department's house rule (12 hours'
  rest before any duty, nothing to production during an incident but its fix, no guest's room
  number over the phone, every release first to 10 % of users, no antibiotic without seeing the
  animal, no cash payment without two signatures, no scaffold used before its inspection tag,
  no object out of the house without a condition report), 2 changes of mind, the new value
  with an exception carved out ("9 from now on … unless its the first monday of the month"),
  after a sarcasm, half in Catalan or only as the answer to the assistant's question ("the
  most gripping read of everyone's week … stop sending it. ever.", "à moins que quelqu'un le
  réclame — et personne le réclamera — tu arrêtes", "no, ya no, buena pregunta … borralo",
  "that's dead, honestly … raus damit"), 1 outcome case (the topic worded differently in each
  of its three signals), 1 with nothing to remember (an apology with "always" about one's own
  mood, "toujours" and "jamais" as arguments in a one-off negotiation letter, "nunca" and
  "siempre" in set phrases of relief, a one-off deadline haggled with "nie im Leben") and 1
  trap each — an instruction injected in a survey's free-text answer, a hotel system's
  password and the doors' master code in a pasted handover note, an indictment excerpt pasted
  by a court interpreter, a pet owner's health, benefits, mobile and address in a pasted
  message — beside a real request; 32 one-line prompts, 8 per language: a rule opened by its
  exception ("unless its a hotfix, …"), a ranking with ">" ("correct > readable > fast"), a
  standing request said sarcastically ("oh sure, ask me 'shall i go ahead?' after every single
  step, i love that"), a rule half in another language; one-offs: an example pointed at for
  one item, an "unless" inside a one-off task, a deadline bargained for one task, sarcasm
  about a third party's "never" before a one-off draft), written on 2026-12-06 after the
  tuning on all twenty-four earlier blind sets, blind25 written at the same time without
  either seeing the other, a sealed holdout (no figure measured when it was committed);
- ``blind27``: ``blind27.yaml``, a twenty-seventh blind batch (48 sessions, 12 per language,
  every format, its shapes drawn from people handing over, delegating and correcting in bulk: 5
  explicit requests in new shapes — a rule handed over while onboarding the assistant to a
  role ("youre taking over issue triage … from sam … here's how he did it and how i want it
  kept: every new issue gets exactly one label"), a rule scoped by folder or file type
  ("anything under legal/ you can read all you want but you never edit it"), a rule given as a
  quota or budget ("no more than two follow-ups a week to the same client"), a writing
  preference given by listing what went wrong in the last five outputs ("I went back over the
  last five emails you wrote me. One: … Five: a wall of text. So …"), a preference about when
  to ask and when to act ("anything you can undo with git, just do it. anything that deletes
  data … you ask first") — 2 doctrine statements given as the team's settled rule, when the
  assistant offers to note it as the person's own preference ("It's not my preference, it's
  the department's rule") or while welcoming the assistant to the team ("first thing every new
  maintainer on this project learns") (two patient identifiers before any exposure, no release
  without a signed tag, no child handed to an adult not on the authorised list, no declaration
  without the original commercial invoice, no batch out without the lab's approval, no account
  change without the three security questions, no flat entered without 24 hours' written
  notice, no sample processed unless tube and order match on two identifiers), 2 changes of
  mind, the new value given while reviewing the notes in bulk ("going down your list …"), as a
  quota, said to a new colleague present in the session, or as a count per month ("thats
  priya's now … drop it", "ce qui a foiré cette semaine : … celui-là tu le supprimes", "haz
  limpieza de tus tareas fijas … fuera", "von einmal die Woche auf null. null."), 1 outcome
  case (three signals on one topic worded differently), 1 with nothing to remember ("always"
  and "never" only inside proper names: plans, beers, concert pieces, firms) and 1 trap each —
  a pupil's custody order, allergy and a parent's contacts in a pasted email, an instruction
  injected in a pull request's description, a LIMS password and API token in a pasted log, a
  soloist's confidential contract pasted to pull out dates — beside a real request; 32
  one-line prompts, 8 per language: a default with its override signal, a budget the
  assistant may spend on its own, a rule scoped by file type or folder, when to ask rather
  than guess; one-offs: a batch delegated in bulk for one time, a handover for one day, a bulk
  correction of five items, a budget for one purchase), written on 2026-12-06 after the tuning
  on all twenty-four earlier blind sets (blind25 and blind26 untouched), a sealed holdout (no
  figure measured when it was committed);
- ``prompts``: ``prompts.yaml``, the 25 real prompts, each labelled standing or one-off.

Each labelled session is written as a transcript in its declared format (plain text, a Messages
JSON array, Claude Code JSONL or Codex JSONL, with tool calls, tool results and hook blocks where
that format has them) into a fresh memory repository. The case's memory is seeded through the
real path (``Agentmem.remember`` of each entry, then accepted as ``agentmem review --accept``
does, so each entry carries its record); its doctrine is written as active rules of scope
``contracts``. Its ``outcomes`` are written to a JSON file read by ``load_outcomes``, as
``agentmem harvest --outcomes FILE`` reads it. ``harvest_session`` then runs exactly as the CLI
does and the proposals it keeps are compared with the labels.

Figures, per set, per language and over all:

- explicit: expected requests of kind ``explicit`` found (any route);
- doctrine: expected doctrine statements found, and of those, routed to doctrine;
- change: expected changes of mind found as the expected ``modify``/``remove`` with a target
  holding the expected words;
- outcome: expected entries drawn from the outcomes found;
- article: the founding article's three remarks (cases with ``article: true``) found;
- precision: kept proposals that match some expected proposal;
- routing / section: matched proposals with the expected route / section (section only where
  the label names one);
- must-not: kept proposals that carry a must-not string (personal data, a secret, pasted
  document content, injected text): the target is 0;
- nothing: proposals kept in sessions with nothing to remember (target: at most 1 in all);
- prompts: standing prompts with at least one expected proposal found, and proposals kept for
  one-off prompts (target: none).

A ``match`` or ``target`` word ``a|b`` is found when either alternative occurs. ``--show``
prints every session's kept proposals and what they matched.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import unicodedata
from collections import defaultdict
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
SETS = {
    "project": HERE / "harvest_set" / "cases.yaml",
    "blind": HERE / "harvest_set" / "blind.yaml",
    "blind2": HERE / "harvest_set" / "blind2.yaml",
    "blind3": HERE / "harvest_set" / "blind3.yaml",
    "blind4": HERE / "harvest_set" / "blind4.yaml",
    "blind5": HERE / "harvest_set" / "blind5.yaml",
    "blind6": HERE / "harvest_set" / "blind6.yaml",
    "blind7": HERE / "harvest_set" / "blind7.yaml",
    "blind8": HERE / "harvest_set" / "blind8.yaml",
    "blind9": HERE / "harvest_set" / "blind9.yaml",
    "blind10": HERE / "harvest_set" / "blind10.yaml",
    "blind11": HERE / "harvest_set" / "blind11.yaml",
    "blind12": HERE / "harvest_set" / "blind12.yaml",
    "blind13": HERE / "harvest_set" / "blind13.yaml",
    "blind14": HERE / "harvest_set" / "blind14.yaml",
    "blind15": HERE / "harvest_set" / "blind15.yaml",
    "blind16": HERE / "harvest_set" / "blind16.yaml",
    "blind17": HERE / "harvest_set" / "blind17.yaml",
    "blind18": HERE / "harvest_set" / "blind18.yaml",
    "blind19": HERE / "harvest_set" / "blind19.yaml",
    "blind20": HERE / "harvest_set" / "blind20.yaml",
    "blind21": HERE / "harvest_set" / "blind21.yaml",
    "blind22": HERE / "harvest_set" / "blind22.yaml",
    "blind23": HERE / "harvest_set" / "blind23.yaml",
    "blind24": HERE / "harvest_set" / "blind24.yaml",
    "blind25": HERE / "harvest_set" / "blind25.yaml",
    "blind26": HERE / "harvest_set" / "blind26.yaml",
    "blind27": HERE / "harvest_set" / "blind27.yaml",
    "prompts": HERE / "harvest_set" / "prompts.yaml",
}
#: The set the next round is measured on and never tuned on: ``--set all`` leaves it out, and
#: ``--show`` refuses it (its summary figures only, with ``--set`` naming it). The helper that
#: writes the next blind set moves this to it in the same commit.
HOLDOUT = "blind27"
SCOPE = "contracts"
LANGS = ("en", "fr", "es", "de")


def fold(text: str) -> str:
    """Case and accents aside (NFKD, combining marks dropped, casefold)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


# --- writing a case as a transcript -----------------------------------------------------------


def _turns(case: dict[str, Any], with_hooks: bool) -> list[tuple[str, str]]:
    """``[(kind, text)]`` with hook text glued to the person's previous turn (Claude Code)."""
    out: list[tuple[str, str]] = []
    for turn in case["turns"]:
        ((kind, text),) = turn.items()
        if kind == "hook":
            if with_hooks and out and out[-1][0] == "u":
                out[-1] = ("u", out[-1][1] + "\n" + text)
            continue
        out.append((kind, str(text)))
    return out


def render(case: dict[str, Any], session_id: str) -> str:
    fmt = case["format"]
    if fmt == "text":
        parts = [f"# Session {case['id']}", ""]
        for kind, text in _turns(case, False):
            if kind == "tool":
                continue
            parts += [f"{'User' if kind == 'u' else 'Assistant'}: {text}", ""]
        return "\n".join(parts)
    if fmt == "messages":
        messages: list[dict[str, Any]] = [{"role": "system", "content": "You review contracts."}]
        for i, (kind, text) in enumerate(_turns(case, False)):
            if kind == "tool":
                call, _, result = text.partition(" -> ")
                messages.append(
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": f"call_{i}",
                                "type": "function",
                                "function": {"name": "read", "arguments": json.dumps({"q": call})},
                            }
                        ],
                    }
                )
                messages.append({"role": "tool", "tool_call_id": f"call_{i}", "content": result})
            else:
                messages.append({"role": "user" if kind == "u" else "assistant", "content": text})
        return json.dumps(messages, ensure_ascii=False, indent=1)
    if fmt == "claude-code":
        lines = []
        common = {"sessionId": session_id, "cwd": "/home/USER/contracts", "version": "2.1.38"}
        for i, (kind, text) in enumerate(_turns(case, True)):
            uuid = f"00000000-0000-4000-8000-{i:012d}"
            if kind == "u":
                lines.append(
                    {
                        **common,
                        "type": "user",
                        "uuid": uuid,
                        "message": {"role": "user", "content": text},
                    }
                )
            elif kind == "a":
                content = [{"type": "text", "text": text}]
                lines.append(
                    {
                        **common,
                        "type": "assistant",
                        "uuid": uuid,
                        "message": {"role": "assistant", "content": content},
                    }
                )
            else:
                call, _, result = text.partition(" -> ")
                use = {
                    "type": "tool_use",
                    "id": f"toolu_{i}",
                    "name": "Read",
                    "input": {"file_path": call},
                }
                lines.append(
                    {
                        **common,
                        "type": "assistant",
                        "uuid": uuid,
                        "message": {"role": "assistant", "content": [use]},
                    }
                )
                res = {"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": result}
                lines.append(
                    {
                        **common,
                        "type": "user",
                        "uuid": uuid + "r",
                        "message": {"role": "user", "content": [res]},
                    }
                )
        return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    if fmt == "codex":
        lines = [
            {"type": "session_meta", "payload": {"id": session_id, "cwd": "/redacted/path"}},
            {
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": "user",
                    "content": [
                        {
                            "type": "input_text",
                            "text": "<environment_context>cwd: /repo</environment_context>",
                        }
                    ],
                },
            },
        ]
        for i, (kind, text) in enumerate(_turns(case, False)):
            if kind == "u":
                item = {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": text}],
                }
                lines.append({"type": "response_item", "payload": item})
                lines.append(
                    {"type": "event_msg", "payload": {"type": "user_message", "message": text}}
                )
            elif kind == "a":
                item = {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": text}],
                }
                lines.append({"type": "response_item", "payload": item})
            else:
                call, _, result = text.partition(" -> ")
                fc = {
                    "type": "function_call",
                    "name": "shell",
                    "arguments": json.dumps({"cmd": call}),
                    "call_id": f"c{i}",
                }
                out = {"type": "function_call_output", "call_id": f"c{i}", "output": result}
                lines += [
                    {"type": "response_item", "payload": fc},
                    {"type": "response_item", "payload": out},
                ]
        return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    raise SystemExit(f"{case['id']}: unknown format {fmt!r}")


# --- a repository per case --------------------------------------------------------------------


def _rule_text(index: int, instruction: str) -> str:
    from agentmem.doctrine.model import Approval, Rule, content_sha256, rule_relpath
    from agentmem.doctrine.render import canonical_text

    rule_id = f"seeded-rule-{index}"
    rule = Rule(
        id=rule_id,
        title=instruction[:60],
        status="active",
        scope=SCOPE,
        instruction=instruction,
        limits=(),
        justification="Seeded by the harvest quality benchmark.",
        version=1,
        proposed_by="bob",
        proposed_at="2026-11-01T10:00:00Z",
        origin_session=None,
        distinct_from=(),
        approval=None,
        review_due="2099-01-01",
        path=rule_relpath(rule_id),
    )
    approval = Approval("alice", "2026-11-02T10:00:00Z", 1, content_sha256(rule))
    return canonical_text(rule.with_changes(approval=approval))


def seed_memory(root: Path, memory: dict[str, list[str]]) -> None:
    """Each entry as a person files it: ``remember`` into the inbox, then accepted (the plan and
    the audit commit of ``agentmem review --accept``), so each carries its record."""
    import agentmem
    from agentmem.proposals.review import commit_accept, plan_accept

    mem = agentmem.open(root)
    repo = mem.repository
    for section, entries in memory.items():
        for text in entries:
            proposal = mem.remember_proposal(text, section=section, session="seed")
            with repo.locked():
                commit_accept(repo, plan_accept(repo, proposal), proposal)


def run_case(case: dict[str, Any], base: Path, provider: str) -> list[Any]:
    """Harvest one case in a fresh repository; the kept proposals."""
    from agentmem import trailers
    from agentmem.harvest.run import harvest_session, load_outcomes
    from agentmem.store import gitio
    from agentmem.store.init import init_repository
    from agentmem.store.repo import open_repository

    root = base / case["id"]
    init_repository(root)
    if case.get("memory"):
        seed_memory(root, case["memory"])
    repo = open_repository(root)
    actor = repo.actor()
    paths = []
    for i, instruction in enumerate(case.get("doctrine") or [], start=1):
        rel = f"doctrine/seeded-rule-{i}.yaml"
        (root / rel).write_text(_rule_text(i, instruction), encoding="utf-8")
        paths.append(rel)
    if paths:
        gitio.commit_paths(root, paths, trailers.message("seed", []))
    suffix = {"text": ".md", "messages": ".json", "claude-code": ".jsonl", "codex": ".jsonl"}
    transcript = base / f"{case['id']}{suffix[case['format']]}"
    transcript.write_text(render(case, f"bench-{case['id']}"), encoding="utf-8")
    outcomes: tuple[Any, ...] = ()
    if case.get("outcomes"):
        path = base / f"{case['id']}.outcomes.json"
        path.write_text(json.dumps(case["outcomes"], ensure_ascii=False), encoding="utf-8")
        outcomes = load_outcomes(path)
    result = harvest_session(
        repo, actor, transcript, provider=provider, scope=SCOPE, outcomes=outcomes
    )
    return list(result.kept)


# --- scoring ----------------------------------------------------------------------------------


def _word_in(word: Any, haystack: str) -> bool:
    """``word`` (or one of its ``a|b`` alternatives) occurs in the folded ``haystack``."""
    return any(fold(alt) in haystack for alt in str(word).split("|"))


def _words_in(words: list[Any], text: str | None) -> bool:
    haystack = fold(text or "")
    return all(_word_in(w, haystack) for w in words)


def matches(expected: dict[str, Any], proposal: Any) -> bool:
    """The proposal says what ``expected`` says (its words, in text or, for remove, target)."""
    where = proposal.target if proposal.action == "remove" else proposal.text
    return _words_in(expected["match"], where)


def score(cases: list[dict[str, Any]], kept: dict[str, list[Any]]) -> dict[str, dict[str, Any]]:
    stats: dict[str, dict[str, Any]] = defaultdict(lambda: defaultdict(int))
    for case in cases:
        proposals = kept[case["id"]]
        for key in (case["lang"], "all"):
            s = stats[key]
            s["sessions"] += 1
            s["proposals"] += len(proposals)
            used: set[int] = set()
            found_any = False
            for exp in case.get("expect") or []:
                kind = exp["kind"]
                s[f"{kind}_expected"] += 1
                if case.get("article"):
                    s["article_expected"] += 1
                hit = next(
                    (i for i, p in enumerate(proposals) if i not in used and matches(exp, p)), None
                )
                if hit is None:
                    continue
                used.add(hit)
                found_any = True
                p = proposals[hit]
                s[f"{kind}_found"] += 1
                s["article_found"] += int(bool(case.get("article")))
                s["routed"] += int(p.route == exp["route"])
                s["matched"] += 1
                if kind == "doctrine":
                    s["doctrine_routed"] += int(p.route == "doctrine")
                if exp["route"] == "memory" and exp.get("section"):
                    s["section_expected"] += 1
                    s["section_right"] += int(p.section == exp["section"])
                if kind == "change":
                    right = p.action == exp["action"] and _words_in(exp.get("target", []), p.target)
                    s["change_right"] += int(right)
            s["precise"] += len(used)
            for p in proposals:
                blob = fold(" ".join(x or "" for x in (p.text, p.target, p.justification)))
                if any(fold(m) in blob for m in case.get("must_not") or []):
                    s["must_not"] += 1
            if case["kind"] == "nothing":
                s["nothing_sessions"] += 1
                s["nothing_proposals"] += len(proposals)
                s["nothing_with"] += int(bool(proposals))
            elif case["kind"] == "standing":
                s["standing_sessions"] += 1
                s["standing_proposed"] += int(found_any)
            elif case["kind"] == "one-off":
                s["oneoff_sessions"] += 1
                s["oneoff_proposals"] += len(proposals)
                s["oneoff_with"] += int(bool(proposals))
    return stats


def pct(num: int, den: int) -> str:
    return f"{100 * num / den:5.1f} % ({num}/{den})" if den else "    – (0/0)"


def _over(what: str) -> Any:
    """``N in K of M sessions``: proposals kept in sessions that should have none."""

    def cell(s: dict[str, Any]) -> str:
        return f"{s[what + '_proposals']} in {s[what + '_with']}/{s[what + '_sessions']}"

    return cell


ROWS: list[tuple[str, str, Any]] = [
    # (label, the count that must be non-zero somewhere for the row to show, cell)
    (
        "explicit requests found",
        "explicit_expected",
        lambda s: pct(s["explicit_found"], s["explicit_expected"]),
    ),
    (
        "doctrine statements found",
        "doctrine_expected",
        lambda s: pct(s["doctrine_found"], s["doctrine_expected"]),
    ),
    (
        "doctrine routed to doctrine",
        "doctrine_expected",
        lambda s: pct(s["doctrine_routed"], s["doctrine_found"]),
    ),
    (
        "changes of mind as modify/remove",
        "change_expected",
        lambda s: pct(s["change_right"], s["change_expected"]),
    ),
    (
        "outcome-derived entries found",
        "outcome_expected",
        lambda s: pct(s["outcome_found"], s["outcome_expected"]),
    ),
    (
        "the article's remarks found",
        "article_expected",
        lambda s: pct(s["article_found"], s["article_expected"]),
    ),
    (
        "standing prompts proposed",
        "standing_sessions",
        lambda s: pct(s["standing_proposed"], s["standing_sessions"]),
    ),
    ("one-off prompts: proposals in", "oneoff_sessions", _over("oneoff")),
    ("precision", "sessions", lambda s: pct(s["precise"], s["proposals"])),
    ("routing right (matched)", "matched", lambda s: pct(s["routed"], s["matched"])),
    (
        "section right (matched memory)",
        "section_expected",
        lambda s: pct(s["section_right"], s["section_expected"]),
    ),
    ("proposals carrying a must-not", "sessions", lambda s: f"{s['must_not']}"),
    ("nothing-to-remember: proposals in", "nothing_sessions", _over("nothing")),
    ("sessions / proposals kept", "sessions", lambda s: f"{s['sessions']} / {s['proposals']}"),
]


def report(stats: dict[str, dict[str, Any]]) -> str:
    keys = [k for k in (*LANGS, "all") if k in stats]
    width = 34
    out = [f"{'':{width}}" + "".join(f"{k:>22}" for k in keys)]
    for label, needs, fn in ROWS:
        if stats["all"][needs]:
            out.append(f"{label:{width}}" + "".join(f"{fn(stats[k]):>22}" for k in keys))
    return "\n".join(out)


def load_set(name: str) -> list[dict[str, Any]]:
    if not SETS[name].exists():
        raise SystemExit(f"{SETS[name]}: no such set (yet)")
    cases = yaml.safe_load(SETS[name].read_text(encoding="utf-8"))
    if not isinstance(cases, list):
        raise SystemExit(f"{SETS[name]}: expected a list of cases")
    return cases


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--set",
        default="all",
        choices=(*SETS, "all"),
        help="the labelled set to run (default: all of them)",
    )
    parser.add_argument("--provider", default="offline")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--show", action="store_true", help="print every session's proposals")
    args = parser.parse_args(argv)
    if args.set == HOLDOUT and args.show:
        parser.error(
            f"{HOLDOUT} is the holdout: its proposals are not shown (--set {HOLDOUT} without "
            "--show gives its summary figures)"
        )
    if args.set == "all":
        names = [n for n in SETS if SETS[n].exists() and n != HOLDOUT]
        print(f"(the holdout, {HOLDOUT}, left out: --set {HOLDOUT} gives its summary figures)")
    else:
        names = [args.set]
    figures: dict[str, dict[str, dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory(prefix="agentmem-harvest-quality-") as tmp:
        os.environ.setdefault("AGENTMEM_TODAY", "2026-12-01")
        for name in names:
            cases = load_set(name)
            base = Path(tmp) / name
            base.mkdir()
            kept: dict[str, list[Any]] = {}
            for case in cases:
                kept[case["id"]] = run_case(case, base, args.provider)
                if args.show:
                    print(f"{name}/{case['id']} [{case['kind']}]")
                    for p in kept[case["id"]]:
                        hit = any(matches(e, p) for e in case.get("expect") or [])
                        mark = "ok " if hit else "-- "
                        print(
                            f"  {mark}{p.action} {p.route} {p.section!s:20} "
                            f"{p.target!s:>20} | {p.text}"
                        )
            figures[name] = score(cases, kept)
    if args.json:
        print(
            json.dumps(
                {n: {k: dict(v) for k, v in f.items()} for n, f in figures.items()}, indent=2
            )
        )
    else:
        for name, stats in figures.items():
            print(
                f"== {name} ({SETS[name].relative_to(HERE)}, {stats['all']['sessions']} sessions)"
            )
            print(report(stats))
            print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
