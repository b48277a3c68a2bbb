from verifier.cli.main import main

raise SystemExit(main())
